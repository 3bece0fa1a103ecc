"""Task-set generators: exact invariants, reproducibility and statistical tests with fixed seeds.

The statistical tests use fixed seeds, so they are deterministic; their thresholds (p > 1e-3)
were chosen so that a correct generator passes with a wide margin while a wrong distribution
(wrong exponent, a missing permutation, wrong shares) fails by many orders of magnitude.
"""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rtsched.errors import InputError
from rtsched.generators import (
    AUTOMOTIVE_PERIOD_SHARES,
    ChoicePeriods,
    GeneratedBatch,
    LogUniformPeriods,
    UniformPeriods,
    convolutional_fixed_sum,
    generate_batch,
    integer_tasks,
    parse_deadlines,
    parse_periods,
    parse_utilizations,
    randfixedsum,
    uunifast,
    uunifast_discard,
)
from rtsched.model import TaskSetBatch

P_MIN = 1e-3


def rng(seed: int = 2025) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------
# Exact invariants of the utilization samplers
# ---------------------------------------------------------------------------------------------
SAMPLERS = {
    "uunifast": lambda g, n, U, size: uunifast(g, n, U, size),
    "uunifast-discard": lambda g, n, U, size: uunifast_discard(g, n, U, size),
    "randfixedsum": lambda g, n, U, size: randfixedsum(g, n, U, size),
    "cfs": lambda g, n, U, size: convolutional_fixed_sum(g, n, U, size),
}


@pytest.mark.parametrize("method", list(SAMPLERS))
@pytest.mark.parametrize(("n", "total"), [(1, 0.7), (2, 1.0), (5, 2.5), (10, 3.9)])
def test_sum_shape_and_bounds(method, n, total):
    size = 50 if method == "cfs" else 500
    u = SAMPLERS[method](rng(), n, total, size)
    assert u.shape == (size, n)
    assert np.all(np.abs(u.sum(axis=1) - total) <= 1e-9)
    assert np.all(u >= 0)
    if method != "uunifast":
        assert np.all(u <= 1.0)


@pytest.mark.parametrize("method", list(SAMPLERS))
def test_reproducible_and_no_global_rng(method):
    np.random.seed(7)  # noqa: NPY002 - the legacy global state must stay untouched
    random.seed(7)
    global_np, global_py = np.random.get_state()[1].copy(), random.getstate()  # noqa: NPY002
    a = SAMPLERS[method](rng(3), 6, 2.2, 40)
    b = SAMPLERS[method](rng(3), 6, 2.2, 40)
    c = SAMPLERS[method](rng(4), 6, 2.2, 40)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.array_equal(np.random.get_state()[1], global_np)  # noqa: NPY002
    assert random.getstate() == global_py


def test_randfixedsum_general_bounds():
    u = randfixedsum(rng(), 6, 3.0, 2000, low=0.2, high=0.7)
    assert np.all((u >= 0.2) & (u <= 0.7))
    assert np.allclose(u.sum(axis=1), 3.0, atol=1e-9, rtol=0)


@pytest.mark.parametrize(("total", "message"), [(3.0 + 1e-6, "--utilization"), (0.0, "positive"), (-1.0, "positive")])
def test_randfixedsum_refuses_totals_outside_the_cube(total, message):
    with pytest.raises(InputError, match=message):
        randfixedsum(rng(), 3, total, 5)


def test_randfixedsum_full_cube_corner():
    u = randfixedsum(rng(), 3, 3.0, 10)
    assert np.allclose(u, 1.0)


def test_uunifast_discard_refuses_impractical_rejection_rate():
    with pytest.raises(InputError, match="RandFixedSum"):
        uunifast_discard(rng(), 10, 9.0, 100)


def test_uunifast_discard_refuses_impossible_total():
    with pytest.raises(InputError, match="n \\* umax"):
        uunifast_discard(rng(), 4, 2.5, 10, umax=0.6)


def test_cfs_per_task_bounds():
    upper = np.array([0.1, 0.3, 0.5, 0.9, 1.0])
    lower = np.array([0.05, 0.0, 0.1, 0.0, 0.2])
    u = convolutional_fixed_sum(rng(), 5, 1.8, 300, lower=lower, upper=upper)
    assert np.all(u >= lower - 1e-12) and np.all(u <= upper + 1e-12)
    assert np.allclose(u.sum(axis=1), 1.8, atol=1e-9, rtol=0)
    with pytest.raises(InputError, match="bounds"):
        convolutional_fixed_sum(rng(), 5, 2.9, 3, upper=upper)



@pytest.mark.parametrize(
    ("total", "lower", "upper"),
    [
        pytest.param(np.nextafter(7.0, 0.0), 0.0, 1.0, id="one-ulp-below-n"),  # found by hypothesis: CFSAError 8-33
        pytest.param(np.nextafter(0.7, 1.0), 0.1, 1.0, id="one-ulp-above-sum-of-lower"),
        pytest.param(7.0 - 1e-11, 0.0, 1.0, id="just-below-n"),
    ],
)
def test_cfs_next_to_a_corner(total, lower, upper):
    """Within a relative 1e-9 of a corner the package's sampler fails; the corner is taken instead."""
    u = convolutional_fixed_sum(rng(), 7, total, 4, lower=lower, upper=upper)
    assert np.all(u >= lower) and np.all(u <= upper)
    assert np.allclose(u.sum(axis=1), total, atol=1e-12, rtol=0)


# ---------------------------------------------------------------------------------------------
# Statistical tests of the utilization samplers
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "total"), [(2, 1.0), (5, 1.7), (12, 4.0)])
def test_uunifast_marginal_is_beta(n, total):
    """Bini & Buttazzo (2005): uniform on the simplex, so u_i / U ~ Beta(1, n - 1) for every i."""
    u = uunifast(rng(n), n, total, 20_000)
    for i in range(n):
        assert stats.kstest(u[:, i] / total, stats.beta(1, n - 1).cdf).pvalue > P_MIN, i


def test_uunifast_beta_test_can_fail():
    # The same test rejects the classic wrong construction (normalised uniforms) decisively.
    x = rng().random((20_000, 5))
    u = x / x.sum(axis=1, keepdims=True)
    assert stats.kstest(u[:, 0], stats.beta(1, 4).cdf).pvalue < 1e-10


def test_randfixedsum_matches_uunifast_where_bounds_are_inactive():
    """With U <= 1 the cube bound is inactive: RandFixedSum must sample UUniFast's distribution."""
    n, total = 5, 0.9
    a = randfixedsum(rng(1), n, total, 20_000)
    b = uunifast(rng(2), n, total, 20_000)
    for i in range(n):  # every coordinate: catches a missing or biased permutation
        assert stats.ks_2samp(a[:, i], b[:, i]).pvalue > P_MIN, i
        assert stats.kstest(a[:, i] / total, stats.beta(1, n - 1).cdf).pvalue > P_MIN, i


def test_randfixedsum_active_bounds_known_density_n3():
    """n = 3, U = 2.2 on [0, 1]^3: the marginal density of u_i is 2 (x - 0.2) / 0.64 on [0.2, 1].

    (For fixed u_1 = x the rest lies on the segment u_2 + u_3 = 2.2 - x inside [0, 1]^2, of
    length proportional to x - 0.2; see papers/emberson2010-randfixedsum.md.)
    """
    u = randfixedsum(rng(), 3, 2.2, 20_000)
    cdf = lambda x: np.clip((x - 0.2) ** 2 / 0.64, 0.0, 1.0)  # noqa: E731
    for i in range(3):
        assert stats.kstest(u[:, i], cdf).pvalue > P_MIN, i
    assert u.min() >= 0.2 - 1e-12


def test_randfixedsum_matches_rejection_sampling_with_active_bounds():
    n, total = 4, 2.6
    a = randfixedsum(rng(5), n, total, 10_000)
    b = uunifast_discard(rng(6), n, total, 10_000)
    for i in range(n):
        assert stats.ks_2samp(a[:, i], b[:, i]).pvalue > P_MIN, i
    # ... and differs from plain UUniFast, where the bound is active (the test has power).
    c = uunifast(rng(7), n, total, 10_000)
    assert stats.ks_2samp(a[:, 0], c[:, 0]).pvalue < 1e-10


def test_randfixedsum_general_bounds_match_rejection():
    # [0.1, 0.6]^4 summing to 1.5, against rejection from UUniFast shifted by the lower bound.
    a = randfixedsum(rng(8), 4, 1.5, 10_000, low=0.1, high=0.6)
    b = 0.1 + uunifast_discard(rng(9), 4, 1.1, 10_000, umax=0.5)
    for i in range(4):
        assert stats.ks_2samp(a[:, i], b[:, i]).pvalue > P_MIN, i


def test_cfs_matches_randfixedsum_with_common_bounds():
    a = convolutional_fixed_sum(rng(10), 3, 2.2, 2_000)
    cdf = lambda x: np.clip((x - 0.2) ** 2 / 0.64, 0.0, 1.0)  # noqa: E731
    for i in range(3):
        assert stats.kstest(a[:, i], cdf).pvalue > P_MIN, i


# ---------------------------------------------------------------------------------------------
# Periods
# ---------------------------------------------------------------------------------------------
def chi_square_p(sample: np.ndarray, values: np.ndarray, probs: np.ndarray, bins: int | None = None) -> float:
    """p-value of a chi-square goodness of fit of a discrete sample; optionally groups values."""
    counts = np.array([np.count_nonzero(sample == v) for v in values], dtype=float)
    assert counts.sum() == sample.size  # nothing outside the support
    if bins is not None:
        edges = np.linspace(0, values.size, bins + 1).astype(int)
        counts = np.add.reduceat(counts, edges[:-1])
        probs = np.add.reduceat(probs, edges[:-1])
    return stats.chisquare(counts, probs / probs.sum() * sample.size).pvalue


@pytest.mark.parametrize("spec", ["log-uniform:10:1000", "log-uniform:100:5000:100", "log-uniform:3:3"])
def test_log_uniform_periods_exact_distribution(spec):
    dist = parse_periods(spec)
    assert isinstance(dist, LogUniformPeriods)
    values, probs = dist.probabilities()
    assert math.isclose(probs.sum(), 1.0)
    sample = dist.draw(rng(), 50_000)
    assert sample.dtype == np.int64
    assert np.all(sample % dist.granularity == 0)
    if values.size > 1:
        assert chi_square_p(sample, values, probs, bins=min(values.size, 25)) > P_MIN


def test_log_uniform_log_period_is_uniform():
    # With a wide range the granularity is negligible: log T is uniform on [ln LO, ln HI].
    sample = parse_periods("log-uniform:1000:10000000").draw(rng(), 20_000)
    lo, hi = math.log(1000), math.log(10_000_001)
    assert stats.kstest(np.log(sample), stats.uniform(lo, hi - lo).cdf).pvalue > P_MIN
    # A uniform period distribution on the same range fails that test decisively.
    wrong = rng().integers(1000, 10_000_000, 20_000)
    assert stats.kstest(np.log(wrong), stats.uniform(lo, hi - lo).cdf).pvalue < 1e-10


def test_uniform_periods():
    dist = parse_periods("uniform:10:29")
    assert dist == UniformPeriods(10, 29)
    sample = dist.draw(rng(), 40_000)
    values = np.arange(10, 30)
    assert chi_square_p(sample, values, np.full(20, 1 / 20)) > P_MIN


def test_choice_periods_with_weights():
    dist = parse_periods("choice:10,20,50:1,2,7")
    assert dist == ChoicePeriods((10, 20, 50), (1.0, 2.0, 7.0))
    sample = dist.draw(rng(), 30_000)
    assert chi_square_p(sample, np.array([10, 20, 50]), np.array([0.1, 0.2, 0.7])) > P_MIN
    assert np.all(parse_periods("choice:7").draw(rng(), 10) == 7)


def test_automotive_shares_chi_square():
    """Kramer, Ziegenbein, Hamann (WATERS 2015), Table III shares, angle-synchronous left out."""
    shares = AUTOMOTIVE_PERIOD_SHARES
    assert math.isclose(sum(shares.values()) + 0.15, 1.0)
    dist = parse_periods("automotive")
    sample = dist.draw(rng(), 50_000)
    values = np.array([ms * 1000 for ms in shares])
    probs = np.array(list(shares.values())) / 0.85
    assert chi_square_p(sample, values, probs) > P_MIN
    # Unrenormalised shares (or a wrong table) are rejected.
    swapped = probs.copy()
    swapped[[3, 6]] = swapped[[6, 3]]
    assert chi_square_p(sample, values, swapped) < 1e-10
    assert np.all(parse_periods("automotive:1").draw(rng(), 100) <= 1000)


@pytest.mark.parametrize(
    "spec",
    [
        "log-uniform:10",
        "log-uniform:0:100",
        "log-uniform:100:10",
        "log-uniform:15:100:10",
        "log-uniform:a:b",
        "uniform:5",
        "choice:",
        "choice:10,20:1",
        "choice:10,20:1,x",
        "choice:10,20:0,0",
        "automotive:1:2",
        "automotive:3000000",
        "gaussian:1:2",
        "",
    ],
)
def test_bad_period_specs_name_the_spec(spec):
    with pytest.raises(InputError) as err:
        parse_periods(spec)
    assert repr(spec) in str(err.value) and "--periods" in str(err.value)


# ---------------------------------------------------------------------------------------------
# Deadlines
# ---------------------------------------------------------------------------------------------
def test_deadlines_uniform_on_c_to_t():
    C = np.full(30_000, 2, dtype=np.int64)
    T = np.full(30_000, 11, dtype=np.int64)
    D = parse_deadlines("uniform").draw(rng(), C, T)
    assert chi_square_p(D, np.arange(2, 12), np.full(10, 0.1)) > P_MIN


def test_deadlines_uniform_fraction_lower_end_rounds_up():
    C = np.full(30_000, 2, dtype=np.int64)
    T = np.full(30_000, 11, dtype=np.int64)
    D = parse_deadlines("uniform:0.5").draw(rng(), C, T)  # [2 + 4.5, 11] -> {7, ..., 11}
    assert chi_square_p(D, np.arange(7, 12), np.full(5, 0.2)) > P_MIN
    assert np.array_equal(parse_deadlines("uniform:1").draw(rng(), C, T), T)
    # 0.3 * (11 - 1) is 3 exactly: D = C + 3 = 4 is allowed (a float product would exclude it).
    D = parse_deadlines("uniform:0.3").draw(rng(), np.full(10_000, 1), np.full(10_000, 11))
    assert D.min() == 4 and D.max() == 11
    D = parse_deadlines("uniform:1/3").draw(rng(), np.full(1000, 2), np.full(1000, 8))  # 2 + 2 = 4
    assert D.min() == 4
    assert np.array_equal(parse_deadlines("implicit").draw(rng(), C, T), T)


@pytest.mark.parametrize(
    "spec",
    ["uniform:", "uniform:1.5", "uniform:-0.1", "uniform:x", "uniform:nan", "uniform:1/0", "arbitrary", "implicit:1"],
)
def test_bad_deadline_specs(spec):
    with pytest.raises(InputError) as err:
        parse_deadlines(spec)
    assert repr(spec) in str(err.value) and "--deadlines" in str(err.value)


def test_bad_utilization_method():
    with pytest.raises(InputError, match="'drs'.*--utilizations|--utilizations.*'drs'"):
        parse_utilizations("drs")
    assert parse_utilizations("randfixedsum") == "randfixedsum"


# ---------------------------------------------------------------------------------------------
# Integer task sets and generate_batch
# ---------------------------------------------------------------------------------------------
def test_rounding_rule():
    u = np.array([[0.001, 0.5, 0.25, 2.0, 0.125]])
    C, D, T = integer_tasks(rng(), u, "choice:8", "implicit")
    # rint(0.008) = 0 -> 1 (never 0); rint(4) = 4; rint(2) = 2; 16 -> capped at T; rint(1) = 1
    assert C.tolist() == [[1, 4, 2, 8, 1]]
    assert np.array_equal(D, T)
    u = np.array([[0.0625, 0.1875]])  # u*T = 0.5 and 1.5: half to even gives 0 -> 1, and 2
    C, _, _ = integer_tasks(rng(), u, "choice:8", "implicit")
    assert C.tolist() == [[1, 2]]


@pytest.mark.parametrize("method", ["uunifast", "uunifast-discard", "randfixedsum", "cfs"])
@pytest.mark.parametrize("deadlines", ["implicit", "uniform", "uniform:0.3"])
def test_generate_batch_invariants(method, deadlines):
    size = 30 if method == "cfs" else 400
    out = generate_batch(
        rng(), n=6, utilization=2.4, size=size, utilizations=method, periods="log-uniform:10:1000", deadlines=deadlines
    )
    assert isinstance(out, GeneratedBatch)
    batch = out.batch
    assert isinstance(batch, TaskSetBatch)
    assert batch.n_sets == size and np.all(batch.sizes == 6)
    assert out.target_utilization == 2.4
    C, D, T = batch.C, batch.D, batch.T
    assert np.all(C >= 1) and np.all(C <= D) and np.all(D <= T)
    assert np.all((T >= 10) & (T <= 1000))
    if deadlines == "implicit":
        assert batch.deadlines == "implicit" and np.array_equal(D, T)
    else:
        x = float(deadlines.partition(":")[2] or 0)
        assert np.all(D >= C + x * (T - C) - 1e-9)
    # Realised utilization is recomputed from the integers, and near the target.
    assert np.allclose(out.realized_utilization, batch.utilizations(), rtol=0, atol=1e-12)
    if method == "uunifast":
        # u_i > 1 happens with plain UUniFast at U = 2.4; the rounding rule caps those at C = T.
        assert np.mean(out.realized_utilization) < 2.4 + 0.05
    else:
        assert abs(np.mean(out.realized_utilization) - 2.4) < 0.05
    TaskSetBatch(C, D, T, batch.offsets, deadlines=batch.deadlines)  # passes full validation


def test_generate_batch_reproducible():
    kwargs = dict(n=5, utilization=1.5, size=100, deadlines="uniform", periods="automotive")
    a = generate_batch(rng(11), **kwargs)
    b = generate_batch(rng(11), **kwargs)
    c = generate_batch(rng(12), **kwargs)
    assert a.batch == b.batch and np.array_equal(a.realized_utilization, b.realized_utilization)
    assert a.batch != c.batch


def test_generate_batch_empty_and_single_task():
    assert generate_batch(rng(), n=3, utilization=1.0, size=0).batch.n_sets == 0
    out = generate_batch(rng(), n=1, utilization=0.4, size=5, periods="choice:100")
    assert out.batch.C.tolist() == [40] * 5


def test_generate_batch_rejects_bad_arguments():
    with pytest.raises(InputError, match="--periods"):
        generate_batch(rng(), n=3, utilization=1.0, size=2, periods="log-uniform:x:y")
    with pytest.raises(InputError, match="--deadlines"):
        generate_batch(rng(), n=3, utilization=1.0, size=2, deadlines="soon")
    with pytest.raises(InputError, match="--n"):
        generate_batch(rng(), n=0, utilization=1.0, size=2)
    with pytest.raises(InputError, match="--utilization"):
        generate_batch(rng(), n=3, utilization=3.5, size=2, utilizations="randfixedsum")
    with pytest.raises(InputError, match="--utilization"):
        generate_batch(rng(), n=3, utilization="lots", size=2)
    with pytest.raises(InputError, match="--umax"):
        generate_batch(rng(), n=3, utilization=1.0, size=2, utilizations="randfixedsum", umax=-1.0)
    with pytest.raises(InputError, match="--count"):
        generate_batch(rng(), n=3, utilization=1.0, size=-1)
    with pytest.raises(InputError, match="--count"):
        generate_batch(rng(), n=3, utilization=1.0, size=2.5)


# ---------------------------------------------------------------------------------------------
# Worked examples of the papers/ notes
# ---------------------------------------------------------------------------------------------
def test_uunifast_worked_example():
    """papers/bini-buttazzo2005-uunifast.md: n = 3, U = 1, uniforms 0.25 and 0.64."""
    from rtsched.generators.utilizations import _uunifast_rows

    u = _uunifast_rows(np.array([[0.25, 0.64]]), 1.0)
    assert np.allclose(u, [[0.5, 0.18, 0.32]], rtol=0, atol=1e-15)


@pytest.mark.parametrize(("n", "total", "expected"), [(3, 2.0, 0.25), (4, 2.6, 0.14155666818388707)])
def test_discard_acceptance_rate_formula(n, total, expected):
    """papers/davis-burns2009-uunifast-discard.md: P(all u_i <= 1) by inclusion-exclusion."""
    formula = sum((-1) ** k * math.comb(n, k) * max(0.0, 1 - k / total) ** (n - 1) for k in range(n + 1))
    assert math.isclose(formula, expected)
    size = 40_000
    accepted = np.count_nonzero(uunifast(rng(n), n, total, size).max(axis=1) <= 1.0)
    assert abs(accepted / size - expected) < 5 * math.sqrt(expected * (1 - expected) / size)


def test_log_uniform_worked_example():
    """papers/emberson2010-randfixedsum.md: P(T = 10) for log-uniform:10:1000."""
    values, probs = parse_periods("log-uniform:10:1000").probabilities()
    assert values[0] == 10 and values[-1] == 1000
    assert math.isclose(probs[0], math.log(11 / 10) / math.log(1001 / 10))
    assert math.isclose(probs[0], 0.020692, rel_tol=1e-4)


def test_cfs_worked_example():
    """papers/griffin-davis2025-cfs.md: n = 2, U = 1, upper (0.7, 0.4) gives u1 ~ U(0.6, 0.7)."""
    u = convolutional_fixed_sum(rng(), 2, 1.0, 2_000, upper=[0.7, 0.4])
    assert u[:, 0].min() >= 0.6 - 1e-9 and u[:, 0].max() <= 0.7 + 1e-9
    assert stats.kstest(u[:, 0], stats.uniform(0.6, 0.1).cdf).pvalue > P_MIN


def test_automotive_worked_example():
    """papers/kramer2015-automotive.md: renormalised shares of 10 ms and 1 ms."""
    values, probs = parse_periods("automotive").probabilities()
    assert math.isclose(probs[list(values).index(10_000)], 0.25 / 0.85)
    assert math.isclose(probs[list(values).index(1_000)], 0.03 / 0.85)


def test_randfixedsum_independent_of_chunking(monkeypatch):
    import rtsched.generators.utilizations as module

    whole = randfixedsum(rng(21), 7, 3.3, 1000)
    monkeypatch.setattr(module, "_RFS_CHUNK", 97)
    assert np.array_equal(randfixedsum(rng(21), 7, 3.3, 1000), whole)
    assert np.array_equal(randfixedsum(rng(21), 7, 3.3, 10), whole[:10])  # prefix-stable
    assert np.array_equal(uunifast(rng(21), 7, 3.3, 10), uunifast(rng(21), 7, 3.3, 1000)[:10])


# ---------------------------------------------------------------------------------------------
# Properties over the parameter space (hypothesis)
# ---------------------------------------------------------------------------------------------
@st.composite
def generator_arguments(draw):
    n = draw(st.integers(1, 12))
    umax = draw(st.sampled_from([1.0, 0.5, 0.9]))
    method = draw(st.sampled_from(["uunifast", "uunifast-discard", "randfixedsum", "cfs"]))
    # UUniFast-Discard only where its acceptance rate is practical; the others up to n * umax.
    top = n * umax * (0.6 if method == "uunifast-discard" else 1.0)
    utilization = draw(st.floats(0.01, max(0.01, top), allow_nan=False))
    periods = draw(
        st.sampled_from(
            ["log-uniform:10:1000", "log-uniform:100:10000:100", "uniform:5:50", "automotive", "choice:7,9:1,3"]
        )
    )
    deadlines = draw(st.sampled_from(["implicit", "uniform", "uniform:0.25", "uniform:1"]))
    return dict(n=n, utilization=utilization, utilizations=method, umax=umax, periods=periods, deadlines=deadlines)


@given(arguments=generator_arguments(), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_generate_batch_properties(arguments, seed):
    out = generate_batch(np.random.default_rng(seed), size=7, **arguments)
    batch = out.batch
    assert batch.n_sets == 7 and np.all(batch.sizes == arguments["n"])
    assert np.all(batch.C >= 1) and np.all(batch.C <= batch.D) and np.all(batch.D <= batch.T)
    if arguments["deadlines"] in ("implicit", "uniform:1"):
        assert np.array_equal(batch.D, batch.T)
    # Realised utilization: each task moves by at most half a tick (or up to 1 tick / T when
    # raised to C = 1); UUniFast tasks above 1 are capped. Otherwise it is close to the target.
    slack = np.add.reduceat(1.0 / batch.T, batch.offsets[:-1])
    if arguments["utilizations"] != "uunifast":
        assert np.all(np.abs(out.realized_utilization - arguments["utilization"]) <= slack + 1e-9)
    again = generate_batch(np.random.default_rng(seed), size=7, **arguments)
    assert again.batch == batch


# ---------------------------------------------------------------------------------------------
# Plain UUniFast above U = 1 loses utilization: the warning (issue 19)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "total"), [(10, 2.0), (10, 2.5), (4, 2.6), (3, 1.5)])
def test_uunifast_loss_is_the_share_of_vectors_above_one(n, total):
    from rtsched.generators.utilizations import uunifast_loss

    share = uunifast_loss(n, total)
    size = 40_000
    drawn = np.count_nonzero(uunifast(rng(n), n, total, size).max(axis=1) > 1.0) / size
    assert abs(drawn - share) < 5 * math.sqrt(share * (1 - share) / size) + 1e-9
    assert uunifast_loss(n, 1.0) == 0.0 and uunifast_loss(n, 0.5) == 0.0


def test_uunifast_above_one_warns_and_the_rounding_really_loses_utilization():
    from rtsched.generators import generate_batch
    from rtsched.generators.utilizations import UtilizationLossWarning, warn_uunifast_loss

    with pytest.warns(UtilizationLossWarning, match=r"U = 2.5 > 1 .* uunifast-discard or randfixedsum"):
        assert warn_uunifast_loss(10, 2.5)
    assert warn_uunifast_loss(10, 1.0) is None  # no warning (pytest turns warnings into errors)
    out = generate_batch(rng(3), n=10, utilization=2.5, size=2000, utilizations="uunifast", periods="log-uniform:1000:100000")
    assert out.realized_utilization.min() < 2.4  # the loss the warning is about
    fixed = generate_batch(rng(3), n=10, utilization=2.5, size=2000, utilizations="uunifast-discard", periods="log-uniform:1000:100000")
    assert abs(fixed.realized_utilization.mean() / 2.5 - 1) < 1e-3


def test_sweep_experiment_with_plain_uunifast_above_one_warns():
    from rtsched.generators.utilizations import UtilizationLossWarning
    from rtsched.sweep import parse_experiment

    text = (
        "[platform]\nm = 4\n[generator]\nn = 10\nutilizations = 'uunifast'\n"
        "[sweep]\nvariable = 'U/m'\npoints = [0.2, 0.6]\nsets_per_point = 2\n"
    )
    with pytest.warns(UtilizationLossWarning, match="U = 2.4 > 1"):
        parse_experiment(text, check_generator=False)
    parse_experiment(text.replace("[0.2, 0.6]", "[0.1, 0.25]"), check_generator=False)  # U <= 1: silent


def test_generate_batch_defaults_are_every_entry_points():
    """generate_batch, `rtsched generate` and the default sweep share their defaults (issue #46).

    generate_batch once defaulted to UUniFast with periods 10-1000, so that
    ``generate_batch(rng, n=10, utilization=0.2, size=...)`` realised U = 0.32 where the CLI
    realised 0.20.
    """
    import inspect

    from rtsched.generators.batch import GENERATE_DEFAULTS
    from rtsched.sweep.kinds import GENERATOR_DEFAULTS

    assert GENERATE_DEFAULTS == GENERATOR_DEFAULTS
    signature = inspect.signature(generate_batch).parameters
    assert {key: signature[key].default for key in GENERATE_DEFAULTS} == GENERATE_DEFAULTS
    out = generate_batch(np.random.default_rng(0), n=10, utilization=0.2, size=2000)
    assert abs(float(np.mean(out.realized_utilization)) - 0.2) < 0.002
    assert not np.all(out.batch.D == out.batch.T)  # deadlines uniform in [C, T], as the CLI's
