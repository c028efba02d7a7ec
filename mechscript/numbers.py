"""Numbers are ints and exact Fractions; a Fraction that is whole becomes an int again."""

from fractions import Fraction


def normal(x):
    """Fractions that are whole become ints, so `4/2` is 2, prints as 2 and can count dice."""
    return x.numerator if type(x) is Fraction and x.denominator == 1 else x


def weighted_sum(weights: dict, power: int = 1):
    """The exact sum of x**power * w over {x: w}. Fractions are grouped by denominator (their
    numerators summed as ints), and the groups added in pairs: added one by one, 12,800 fractions
    of distinct denominators took seconds, each addition working on the whole sum so far."""
    whole = 0
    groups: dict[int, int] = {}
    for x, w in weights.items():
        if type(x) is Fraction:
            d = x.denominator ** power
            groups[d] = groups.get(d, 0) + x.numerator ** power * w
        else:
            whole += x ** power * w
    parts = [Fraction(n, d) for d, n in groups.items()]
    while len(parts) > 1:
        parts = [sum(parts[i:i + 2]) for i in range(0, len(parts), 2)]
    return whole + parts[0] if parts else whole
