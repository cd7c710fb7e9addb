# SPDX-License-Identifier: GPL-2.0-or-later
"""The shapes a board's memory series take over days, for the trend rules'
promtool tests (gen-trend-tests.py) and the simulated fleet (gen-fleet.py):
a slow leak, its flat twin, a single step and a sawtooth, each under the
sample-to-sample noise of a real board (uniform, +-40 MiB by default: the
remainder is MemTotal less fields read at slightly different moments).

A shape is a function of the time in seconds since the series began; noise
is drawn from a random.Random of its own, so a leak and its twin given the
same seed carry the very same noise.
"""
import random

MiB = 1 << 20
GiB = 1 << 30
HOUR = 3600
NOISE = 40 * MiB


def leak(base, per_hour, start=0):
    """base, then rising per_hour (falling when negative) from start on."""
    return lambda t: base + per_hour * max(0, t - start) / HOUR


def flat(base):
    return lambda t: base


def step(base, height, at):
    """A model loaded once: base, then base + height from `at` on."""
    return lambda t: base + (height if t >= at else 0)


def sawtooth(base, height, period):
    """Buffers filled and freed: rises by height over each period, then drops."""
    return lambda t: base + height * (t % period) / period


def samples(shape, seconds, every, seed, noise=NOISE):
    """[(t, value)] from 0 to `seconds` inclusive, every `every` seconds,
    whole bytes."""
    rng = random.Random(seed)
    return [(t, int(shape(t) + rng.uniform(-noise, noise)))
            for t in range(0, seconds + 1, every)]
