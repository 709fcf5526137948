"""The lookup table that total() in lookup.py queries: built once per call of total()."""

# EVOLVE-BLOCK-START
def build(pairs):
    """The table for (key, value) pairs: a list of the pairs, in order."""
    table = []
    for key, value in pairs:
        table.append((key, value))
    return table
# EVOLVE-BLOCK-END
