"""A correct bottom-up merge sort in pure Python: expected speedup >> 10."""


def bad_sort(values: list[int]) -> list[int]:
    src = list(values)
    n = len(src)
    width = 1
    while width < n:
        dst: list[int] = []
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            while i < mid and j < hi:
                if src[j] < src[i]:
                    dst.append(src[j])
                    j += 1
                else:
                    dst.append(src[i])
                    i += 1
            dst.extend(src[i:mid])
            dst.extend(src[j:hi])
        src = dst
        width *= 2
    return src
