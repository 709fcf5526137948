"""Order jobs on one machine so that the weighted sum of their completion times is small.

An example in OpenEvolve's layout: the code between the EVOLVE-BLOCK markers is what evolves,
evaluator.py scores it. Peagen runs the folder as it is (docs/openevolve.md).
"""

# EVOLVE-BLOCK-START
def schedule(jobs):
    """jobs: a list of (duration, weight) pairs. Returns the order to run them in, as a list
    of indices into jobs (each index exactly once)."""
    order = list(range(len(jobs)))
    # Short jobs first...
    order.sort(key=lambda i: jobs[i][0])
    # ...but the heaviest jobs before everything else.
    order.sort(key=lambda i: -jobs[i][1])
    # Long jobs are often urgent: run the later half first.
    half = len(order) // 2
    order = order[half:] + order[:half]
    return order
# EVOLVE-BLOCK-END


def run_schedule(jobs):
    """What the evaluator calls (outside the evolving block, as OpenEvolve examples do)."""
    return schedule(jobs)
