"""cb.random.default_rng: numpy's Generator interface on the device's Philox4x32-10 generator."""
import numpy as np
import pytest

import cudabridge as cb


# ---- an independent Philox4x32-10 (Salmon et al., SC'11), for the stream layout the module names --

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(counter, key):
    c, k = list(counter), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & MASK, p1 & MASK, ((p0 >> 32) ^ c[3] ^ k[1]) & MASK, p0 & MASK]
    return c


def reference_float64(seed, draw, n):
    """Element i: block i // 2 of stream `draw`, words 2(i % 2) and 2(i % 2) + 1, 53 bits."""
    out = []
    for i in range(n):
        b = i // 2
        words = philox([b & MASK, b >> 32, draw & MASK, draw >> 32], [seed & MASK, seed >> 32])
        hi, lo = words[2 * (i % 2)], words[2 * (i % 2) + 1]
        out.append((((hi << 32) | lo) >> 11) / float(1 << 53))
    return np.array(out)


def host(x):
    return cb.from_device(x)


# ---- what a draw is ---------------------------------------------------------------------------


def test_a_draw_is_the_philox_stream_of_its_seed_and_its_place(gpu):
    rng = cb.random.default_rng(12345)
    first, second = host(rng.random(10)), host(rng.random(10))
    np.testing.assert_array_equal(first, reference_float64(12345, 0, 10))
    np.testing.assert_array_equal(second, reference_float64(12345, 1, 10))


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others(gpu):
    a, b, c = cb.random.default_rng(7), cb.random.default_rng(7), cb.random.default_rng(8)
    x, y, z = host(a.normal(size=1000)), host(b.normal(size=1000)), host(c.normal(size=1000))
    np.testing.assert_array_equal(x, y)
    assert not np.array_equal(x, z)


def test_results_are_device_arrays_of_the_asked_shape_and_dtype(gpu):
    rng = cb.random.default_rng(1)
    assert isinstance(rng.random((3, 4)), cb.ndarray)
    assert rng.random((3, 4)).shape == (3, 4)
    assert rng.random(5, dtype=np.float32).dtype == np.float32
    assert rng.random().shape == ()
    assert rng.integers(0, 5, size=(2, 2), dtype=np.int32).dtype == np.int32
    assert rng.random(0).shape == (0,)


# ---- distributions ----------------------------------------------------------------------------


def test_random_and_uniform_stay_in_their_half_open_range(gpu):
    rng = cb.random.default_rng(3)
    u = host(rng.random(100_000))
    assert u.min() >= 0.0 and u.max() < 1.0
    v = host(rng.uniform(-2.0, 5.0, size=100_000))
    assert v.min() >= -2.0 and v.max() < 5.0
    assert abs(v.mean() - 1.5) < 0.05


def test_normal_has_the_asked_mean_and_spread(gpu):
    x = host(cb.random.default_rng(11).normal(3.0, 2.0, size=200_000))
    assert np.all(np.isfinite(x))
    assert abs(x.mean() - 3.0) < 0.03
    assert abs(x.std() - 2.0) < 0.03


def test_integers_cover_their_range_and_nothing_else(gpu):
    rng = cb.random.default_rng(5)
    k = host(rng.integers(-3, 4, size=20_000))
    assert k.dtype == np.int64
    assert set(np.unique(k)) == set(range(-3, 4))
    assert set(np.unique(host(rng.integers(6, size=5000)))) == set(range(6))
    assert set(np.unique(host(rng.integers(1, 3, size=5000, endpoint=True)))) == {1, 2, 3}
    counts = np.bincount(host(rng.integers(0, 4, size=40_000)))
    assert np.all(np.abs(counts - 10_000) < 400)


def test_permutation_is_a_shuffle(gpu):
    rng = cb.random.default_rng(9)
    p = host(rng.permutation(1000))
    assert sorted(p.tolist()) == list(range(1000))
    assert not np.array_equal(p, np.arange(1000))
    rows = np.arange(20).reshape(10, 2)
    shuffled = host(rng.permutation(cb.to_device(rows)))
    assert sorted(map(tuple, shuffled.tolist())) == sorted(map(tuple, rows.tolist()))


def test_choice_with_and_without_replacement(gpu):
    rng = cb.random.default_rng(21)
    pool = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    drawn = host(rng.choice(cb.to_device(pool), size=1000))
    assert set(drawn.tolist()) == set(pool.tolist())
    unique = host(rng.choice(100, size=30, replace=False))
    assert len(set(unique.tolist())) == 30 and unique.min() >= 0 and unique.max() < 100


def test_weighted_choice_follows_the_weights_and_never_picks_a_zero_weight(gpu):
    rng = cb.random.default_rng(33)
    picks = host(rng.choice(4, size=40_000, p=[0.1, 0.0, 0.6, 0.3]))
    counts = np.bincount(picks, minlength=4)
    assert counts[1] == 0
    np.testing.assert_allclose(counts / 40_000, [0.1, 0.0, 0.6, 0.3], atol=0.01)


# ---- misuse -----------------------------------------------------------------------------------


@pytest.mark.parametrize("call, error", [
    (lambda r: r.integers(5, 5), ValueError),
    (lambda r: r.integers(0, 300, dtype=np.uint8), ValueError),
    (lambda r: r.integers(0.5, 3), TypeError),
    (lambda r: r.random(dtype=np.int32), TypeError),
    (lambda r: r.normal(0.0, -1.0), ValueError),
    (lambda r: r.choice(5, size=6, replace=False), ValueError),
    (lambda r: r.choice(3, size=2, p=[0.5, 0.5]), ValueError),
    (lambda r: r.choice(2, size=2, p=[0.7, 0.7]), ValueError),
    (lambda r: r.choice(2, size=2, p=[0.5, 0.5], replace=False), NotImplementedError),
    (lambda r: r.random((-1, 2)), ValueError),
    (lambda r: r.permutation(-1), ValueError),
])
def test_bad_arguments_say_what_is_wrong(gpu, call, error):
    with pytest.raises(error):
        call(cb.random.default_rng(0))


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1 << 64, ValueError), (1.5, TypeError), ("1", TypeError)])
def test_a_bad_seed_is_refused(seed, error):
    with pytest.raises(error):
        cb.random.default_rng(seed)


def test_a_generator_passes_through_default_rng():
    rng = cb.random.default_rng(4)
    assert cb.random.default_rng(rng) is rng
