"""Sum of the values of the keys asked for, through the table of table.py."""
from table import build


# EVOLVE-BLOCK-START
def lookup(table, key):
    """The value of `key` in the table, or None."""
    for k, v in table:
        if k == key:
            return v
    return None
# EVOLVE-BLOCK-END


def total(pairs, keys):
    table = build(pairs)
    found = (lookup(table, key) for key in keys)
    return sum(value for value in found if value is not None)
