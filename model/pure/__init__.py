"""Tiny pure helpers over plain `str`/`int` values, each with contracts CrossHair checks.

They take no attrs classes and no `Literal` types so the symbolic checker can build every input.
"""
