"""Numbers are ints and exact Fractions; a Fraction that is whole becomes an int again."""

from fractions import Fraction


def normal(x):
    """Fractions that are whole become ints, so `4/2` is 2, prints as 2 and can count dice."""
    return x.numerator if type(x) is Fraction and x.denominator == 1 else x
