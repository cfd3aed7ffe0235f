#!/usr/bin/env python3
"""openaclnn.torch against stock PyTorch and a float64 reference.

Every check that claims openaclnn ran asserts it through the extension's call counters, and
every fallback check asserts PyTorch's kernel ran, so no result is taken on trust.

Rules (docs/pytorch.md):
- upsample fp32, forward and backward: bit-identical to stock PyTorch, strides included;
- upsample bf16: the fp32 result rounded once to bf16 (the forward only moves values; stock
  PyTorch 1.13 has no bf16 CPU forward at all, and its bf16 backward is not that);
- batch norm: the largest error against a float64 evaluation of the same inputs is at most
  stock PyTorch's (plus 2^-40 of the largest reference value: the float64 reference's own
  uncertainty), for every output: y, the saved statistics, the running statistics and every
  gradient. The operators use eps and momentum as float32 (the CANN contract), so the random
  cases use values float32 represents (EPS, MOMENTUM; docs/pytorch.md quantifies the
  difference PyTorch's defaults 1e-5 and 0.1 make);
- inputs the operators do not take give exactly what stock PyTorch gives (result or error).
"""
import math
import os
import random
import signal
import unittest

import torch
import torch.nn.functional as F

import openaclnn.torch as oa

SEED = 20261201
EPS = float(torch.tensor(1e-5, dtype=torch.float32))  # 1e-5 as float32 represents it
MOMENTUM = float(torch.tensor(0.1, dtype=torch.float32))
CHANNELS_LAST = {4: torch.channels_last, 5: torch.channels_last_3d}


def stock(fn):
    """fn() with PyTorch's own kernels, leaving openaclnn's state as it was."""
    was_enabled = oa.is_enabled()
    oa.disable()
    try:
        return fn()
    finally:
        if was_enabled:
            oa.enable()


def counts_delta(before, kernel):
    after = oa.call_counts()[kernel]
    return after[0] - before[kernel][0], after[1] - before[kernel][1]


class CountingTestCase(unittest.TestCase):
    # These tests check openaclnn's kernels at every size: routing to stock is off.
    def setUp(self):
        oa.set_routing(False)

    def tearDown(self):
        oa.set_routing(True)

    def ours(self, fn, kernel, calls=None):
        """fn() with openaclnn enabled; asserts openaclnn ran `kernel` (and never fell back)."""
        before = oa.call_counts()
        with oa.enabled():
            result = fn()
        ran, fell_back = counts_delta(before, kernel)
        self.assertGreater(ran, 0, f"openaclnn did not run {kernel}")
        if calls is not None:
            self.assertEqual(ran, calls)
        self.assertEqual(fell_back, 0, f"{kernel} fell back to PyTorch")
        return result

    def fallback(self, fn, kernel):
        """fn() with openaclnn enabled; asserts PyTorch's kernel ran `kernel`."""
        before = oa.call_counts()
        with oa.enabled():
            result = fn()
        ran, fell_back = counts_delta(before, kernel)
        self.assertEqual(ran, 0, f"openaclnn ran {kernel} on an input it should leave to PyTorch")
        self.assertGreater(fell_back, 0)
        return result

    def assert_identical(self, ours, theirs, what=""):
        self.assertEqual(ours.dtype, theirs.dtype, what)
        self.assertEqual(ours.shape, theirs.shape, what)
        self.assertEqual(ours.stride(), theirs.stride(), f"{what}: strides")
        self.assertTrue(torch.equal(ours, theirs), f"{what}: values differ")

    def assert_error_at_most_stock(self, ours, theirs, reference, what):
        self.assertEqual(ours.dtype, theirs.dtype, what)
        self.assertEqual(ours.shape, theirs.shape, what)
        if reference.numel() == 0:
            return
        err_ours = (ours.double() - reference).abs().max().item()
        err_stock = (theirs.double() - reference).abs().max().item()
        slack = reference.abs().max().item() * 2.0**-40
        self.assertLessEqual(err_ours, err_stock + slack,
                             f"{what}: max error {err_ours:.3e} vs stock PyTorch's {err_stock:.3e}")


def random_view(shape, dtype, layout, rng, scale=1.0, offset=0.0, readonly=False):
    """A tensor of `shape` laid out as `layout`: contiguous, channels_last, sliced (every
    other element of a wider buffer on the last axis), reversed (spatial axes stored in
    reverse order) or broadcast (stride 0 on axis 2; only for tensors that are only read)."""
    gen = torch.Generator().manual_seed(rng.randrange(2**31))

    def values(s):
        return (torch.randn(s, generator=gen, dtype=torch.float64) * scale + offset).to(dtype)

    if layout == "contiguous":
        return values(shape)
    if layout == "channels_last":
        return values(shape).contiguous(memory_format=CHANNELS_LAST[len(shape)])
    if layout == "sliced":
        wide = list(shape[:-1]) + [2 * shape[-1] + 1]
        return values(wide)[..., 1::2]
    if layout == "reversed":
        order = [0, 1] + list(range(len(shape) - 1, 1, -1))
        return values([shape[i] for i in order]).permute(*order)
    if layout == "broadcast":
        assert readonly
        narrow = list(shape)
        narrow[2] = 1
        return values(narrow).expand(*shape)
    raise ValueError(layout)


class UpsampleTest(CountingTestCase):
    LAYOUTS = ("contiguous", "channels_last", "sliced", "reversed", "broadcast")

    def random_case(self, rng):
        shape = [rng.randint(1, 3), rng.randint(1, 4)] + [rng.randint(1, 7) for _ in range(3)]
        if rng.random() < 0.5:
            return shape, dict(size=[rng.randint(1, 3 * n) for n in shape[2:]])
        while True:  # scales that give every axis at least one output element
            scales = [rng.choice([0.5, 0.75, 1.0, 1.3, 2.0, 2.4, 3.0]) for _ in range(3)]
            if all(math.floor(n * s) >= 1 for n, s in zip(shape[2:], scales)):
                return shape, dict(scale_factor=tuple(scales))

    def test_forward_bit_identical(self):
        rng = random.Random(SEED)
        for case in range(40):
            shape, how = self.random_case(rng)
            for dtype in (torch.float32, torch.bfloat16):
                x = random_view(shape, dtype, rng.choice(self.LAYOUTS), rng, readonly=True)
                run = lambda t: F.interpolate(t, mode="nearest-exact", **how)
                expected = stock(lambda: run(x.float())).to(dtype)
                self.assert_identical(self.ours(lambda: run(x), "upsample_nearest_exact3d", calls=1), expected,
                                      f"case {case} {shape} {how} {dtype}")

    def test_backward_fp32_bit_identical_through_autograd(self):
        rng = random.Random(SEED + 1)
        for case in range(40):
            shape, how = self.random_case(rng)
            x = random_view(shape, torch.float32, rng.choice(self.LAYOUTS[:4]), rng)
            out_shape = stock(lambda: F.interpolate(x, mode="nearest-exact", **how)).shape
            grad = random_view(list(out_shape), torch.float32, rng.choice(self.LAYOUTS), rng, readonly=True)

            def run():
                leaf = x.detach().requires_grad_()
                F.interpolate(leaf, mode="nearest-exact", **how).backward(grad)
                return leaf.grad

            self.assert_identical(self.ours(run, "upsample_nearest_exact3d_backward", calls=1), stock(run),
                                  f"case {case} {shape} {how}")

    def test_bf16_backward_is_fp32_rounded_once(self):
        rng = random.Random(SEED + 2)
        cases = [([1, 2, 3, 4, 5], [7, 9, 11]), ([2, 3, 1, 1, 1], [50, 50, 50]), ([1, 1, 5, 5, 5], [12, 12, 12])]
        for _ in range(20):
            cases.append((self.random_case(rng)[0], None))
        for shape, size in cases:
            if size is None:
                size = [rng.randint(1, 3 * n) for n in shape[2:]]
            grad = random_view([shape[0], shape[1]] + size, torch.bfloat16, rng.choice(self.LAYOUTS), rng,
                               readonly=True)
            run = lambda g: torch.ops.aten._upsample_nearest_exact3d_backward(g, size, shape, None, None, None)
            expected = stock(lambda: run(grad.float())).bfloat16()
            self.assert_identical(self.ours(lambda: run(grad), "upsample_nearest_exact3d_backward"), expected,
                                  f"{shape} -> {size}")

    def test_out_overloads_write_in_place(self):
        rng = random.Random(SEED + 3)
        for case in range(20):
            shape, how = self.random_case(rng)
            size = how.get("size") or [int(math.floor(n * s)) for n, s in zip(shape[2:], how["scale_factor"])]
            if min(size) < 1:
                continue
            scales = how.get("scale_factor", (None, None, None))
            for dtype in (torch.float32, torch.bfloat16):
                x = random_view(shape, dtype, rng.choice(self.LAYOUTS), rng, readonly=True)
                layout = rng.choice(self.LAYOUTS[:4])
                out = random_view(shape[:2] + size, dtype, layout, rng)
                got = self.ours(lambda: torch.ops.aten._upsample_nearest_exact3d.out(x, size, *scales, out=out),
                                "upsample_nearest_exact3d.out")
                self.assertEqual(got.data_ptr(), out.data_ptr())
                expected = stock(lambda: torch.ops.aten._upsample_nearest_exact3d(x.float(), size, *scales)).to(dtype)
                self.assertTrue(torch.equal(out, expected), f"forward out= case {case} {dtype}")

                grad = random_view(shape[:2] + size, dtype, rng.choice(self.LAYOUTS), rng, readonly=True)
                grad_input = random_view(shape, dtype, layout, rng)
                self.ours(lambda: torch.ops.aten._upsample_nearest_exact3d_backward.grad_input(
                    grad, size, shape, *scales, grad_input=grad_input), "upsample_nearest_exact3d_backward.grad_input")
                expected = stock(lambda: torch.ops.aten._upsample_nearest_exact3d_backward(
                    grad.float(), size, shape, *scales)).to(dtype)
                self.assertTrue(torch.equal(grad_input, expected), f"backward grad_input= case {case} {dtype}")

    def test_nn_upsample_module(self):
        up = torch.nn.Upsample(scale_factor=2.4, mode="nearest-exact")
        x = torch.randn(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d)

        def run():
            leaf = x.detach().requires_grad_()
            y = up(leaf)
            y.backward(torch.ones_like(y))
            return y.detach(), leaf.grad

        ours = self.ours(run, "upsample_nearest_exact3d")
        theirs = stock(run)
        self.assert_identical(ours[0], theirs[0], "y")
        self.assert_identical(ours[1], theirs[1], "grad")


def batch_norm_reference(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """float64 evaluation of native_batch_norm on the same (upcast) inputs; returns outputs
    and the running statistics after the update."""
    up = lambda t: None if t is None else t.detach().double().clone()
    rm, rv = up(running_mean), up(running_var)
    out = torch.native_batch_norm(up(x), up(weight), up(bias), rm, rv, training, momentum, eps)
    return out, rm, rv


class BatchNormTest(CountingTestCase):
    LAYOUTS = ("contiguous", "channels_last", "sliced", "reversed")
    # (input dtype, weight / bias / statistics dtype)
    DTYPES = ((torch.float32, torch.float32), (torch.bfloat16, torch.bfloat16), (torch.bfloat16, torch.float32))

    def random_case(self, rng):
        rank = rng.choice([2, 3, 4, 5])
        shape = [rng.randint(2, 8), rng.randint(1, 6)] + [rng.randint(2, 9) for _ in range(rank - 2)]
        layouts = [l for l in self.LAYOUTS if l != "channels_last" or rank >= 4]
        if rank == 2:
            layouts = ["contiguous", "sliced"]
        return shape, rng.choice(layouts)

    def channel_tensors(self, channels, dtype, rng, affine, running):
        gen = torch.Generator().manual_seed(rng.randrange(2**31))
        make = lambda scale, offset: (torch.rand(channels, generator=gen, dtype=torch.float64) * scale
                                      + offset).to(dtype)
        weight, bias = (make(2, 0.1), make(1, -0.5)) if affine else (None, None)
        running_mean, running_var = (make(1, 0), make(1, 0.5)) if running else (None, None)
        return weight, bias, running_mean, running_var

    def check_forward(self, x, weight, bias, running_mean, running_var, training, what):
        momentum, eps = MOMENTUM, EPS
        copy = lambda t: None if t is None else t.clone()
        rm_ours, rv_ours, rm_stock, rv_stock = map(copy, (running_mean, running_var, running_mean, running_var))
        ours = self.ours(lambda: torch.native_batch_norm(x, weight, bias, rm_ours, rv_ours, training, momentum, eps),
                         "native_batch_norm", calls=1)
        theirs = stock(lambda: torch.native_batch_norm(x, weight, bias, rm_stock, rv_stock, training, momentum, eps))
        reference, rm_ref, rv_ref = batch_norm_reference(x, weight, bias, running_mean, running_var, training,
                                                         momentum, eps)
        self.assertEqual(ours[0].stride(), theirs[0].stride(), f"{what}: y strides")
        for name, a, b, r in zip(("y", "save_mean", "save_invstd"), ours, theirs, reference):
            self.assert_error_at_most_stock(a, b, r, f"{what}: {name}")
        if running_mean is not None and training:
            self.assert_error_at_most_stock(rm_ours, rm_stock, rm_ref, f"{what}: running_mean")
            self.assert_error_at_most_stock(rv_ours, rv_stock, rv_ref, f"{what}: running_var")
        return theirs

    def test_forward_error_at_most_stock(self):
        rng = random.Random(SEED + 10)
        for case in range(60):
            shape, layout = self.random_case(rng)
            dtype, channel_dtype = rng.choice(self.DTYPES)
            training = rng.random() < 0.6
            affine, running = rng.random() < 0.7, (not training) or rng.random() < 0.7
            x = random_view(shape, dtype, layout, rng, scale=rng.choice([1, 1e-2]), offset=rng.choice([0, 3, 100]))
            params = self.channel_tensors(shape[1], channel_dtype, rng, affine, running)
            self.check_forward(x, *params, training, f"case {case} {shape} {layout} {dtype}/{channel_dtype} "
                                                     f"training={training} affine={affine} running={running}")

    def test_backward_error_at_most_stock(self):
        rng = random.Random(SEED + 11)
        for case in range(60):
            shape, layout = self.random_case(rng)
            dtype, channel_dtype = rng.choice(self.DTYPES)
            train = rng.random() < 0.6
            weight, _, running_mean, running_var = self.channel_tensors(shape[1], channel_dtype, rng,
                                                                        rng.random() < 0.7, True)
            x = random_view(shape, dtype, layout, rng, offset=rng.choice([0, 2]))
            grad = random_view(shape, dtype, rng.choice(self.LAYOUTS[:2] if len(shape) >= 4 else ["contiguous"]), rng)
            _, save_mean, save_invstd = stock(lambda: torch.native_batch_norm(
                x, weight, None, running_mean.clone(), running_var.clone(), True, MOMENTUM, EPS))
            mask = [True, rng.random() < 0.7, rng.random() < 0.7]
            args = lambda t: (t(grad), t(x), t(weight), t(running_mean), t(running_var), t(save_mean), t(save_invstd),
                              train, EPS, mask)
            same = lambda t: t
            run = lambda: torch.ops.aten.native_batch_norm_backward(*args(same))
            ours = self.ours(run, "native_batch_norm_backward", calls=1)
            theirs = stock(run)
            reference = torch.ops.aten.native_batch_norm_backward(
                *args(lambda t: None if t is None else t.double()))
            what = f"case {case} {shape} {layout} {dtype}/{channel_dtype} train={train} mask={mask}"
            self.assertEqual(ours[0].stride(), theirs[0].stride(), f"{what}: grad_input strides")
            for name, a, b, r, wanted in zip(("grad_input", "grad_weight", "grad_bias"), ours, theirs, reference,
                                             mask):
                if not wanted:
                    self.assertIsNone(a, f"{what}: {name}")
                    continue
                self.assert_error_at_most_stock(a, b, r, f"{what}: {name}")

    def test_modules_through_autograd(self):
        rng = random.Random(SEED + 12)
        for module_type, shape in ((torch.nn.BatchNorm2d, [8, 6, 9, 10]), (torch.nn.BatchNorm3d, [4, 5, 6, 7, 8])):
            for channels_last in (False, True):
                for training in (True, False):
                    x = random_view(shape, torch.float32, "channels_last" if channels_last else "contiguous", rng,
                                    offset=1.5)
                    grad = random_view(shape, torch.float32, "contiguous", rng)
                    base = module_type(shape[1], eps=EPS, momentum=MOMENTUM)
                    with torch.no_grad():
                        base.weight.uniform_(0.5, 1.5)
                        base.bias.uniform_(-0.5, 0.5)
                        base.running_mean.uniform_(-1, 1)
                        base.running_var.uniform_(0.5, 2)

                    def run(module, dtype=torch.float32):
                        module.train(training)
                        leaf = x.detach().to(dtype).requires_grad_()
                        y = module(leaf)
                        y.backward(grad.to(dtype))
                        return (y.detach(), leaf.grad, module.weight.grad, module.bias.grad, module.running_mean,
                                module.running_var)

                    copies = [module_type(shape[1], eps=EPS, momentum=MOMENTUM) for _ in range(3)]
                    for c in copies:
                        c.load_state_dict(base.state_dict())
                    copies[2].double()
                    ours = self.ours(lambda: run(copies[0]), "native_batch_norm")
                    theirs = stock(lambda: run(copies[1]))
                    reference = run(copies[2], torch.float64)
                    what = f"{module_type.__name__} channels_last={channels_last} training={training}"
                    self.assertEqual(ours[0].stride(), theirs[0].stride(), f"{what}: y strides")
                    self.assertEqual(ours[1].stride(), theirs[1].stride(), f"{what}: grad strides")
                    for name, a, b, r in zip(("y", "grad_input", "grad_weight", "grad_bias", "running_mean",
                                              "running_var"), ours, theirs, reference):
                        self.assert_error_at_most_stock(a, b, r, f"{what}: {name}")


class SwitchingAndFallbackTest(CountingTestCase):
    def test_enable_disable_round_trips(self):
        x = torch.randn(1, 2, 3, 4, 5)
        run = lambda: F.interpolate(x, size=[5, 6, 7], mode="nearest-exact")
        oa.disable()
        self.assertFalse(oa.is_enabled())
        for _ in range(3):
            oa.enable()
            oa.enable()  # idempotent
            self.assertTrue(oa.is_enabled())
            before = oa.call_counts()
            run()
            self.assertEqual(counts_delta(before, "upsample_nearest_exact3d"), (1, 0))
            oa.disable()
            oa.disable()
            self.assertFalse(oa.is_enabled())
            before = oa.call_counts()
            run()  # PyTorch's own kernel: none of ours is called, not even the fallback path
            self.assertEqual(counts_delta(before, "upsample_nearest_exact3d"), (0, 0))

    def test_context_manager_restores_state(self):
        oa.disable()
        with oa.enabled():
            self.assertTrue(oa.is_enabled())
            with oa.enabled():
                self.assertTrue(oa.is_enabled())
            self.assertTrue(oa.is_enabled())
        self.assertFalse(oa.is_enabled())
        oa.enable()
        with oa.enabled():
            pass
        self.assertTrue(oa.is_enabled())
        oa.disable()
        with self.assertRaises(ZeroDivisionError):
            with oa.enabled():
                1 / 0
        self.assertFalse(oa.is_enabled())

    def assert_same_as_stock(self, fn, kernel):
        """Enabled, fn() runs PyTorch's kernel and gives stock's result or stock's error."""
        try:
            expected = stock(fn)
        except Exception as error:  # noqa: BLE001 - any error stock raises must be raised the same way
            before = oa.call_counts()
            with oa.enabled():
                with self.assertRaises(type(error)) as raised:
                    fn()
            self.assertEqual(str(raised.exception), str(error))
            self.assertEqual(counts_delta(before, kernel)[0], 0)
            return
        got = self.fallback(fn, kernel)
        expected = expected if isinstance(expected, (tuple, list)) else (expected,)
        got = got if isinstance(got, (tuple, list)) else (got,)
        for a, b in zip(got, expected):
            if a is None or b is None:
                self.assertIs(a, b)
                continue
            self.assertEqual(a.dtype, b.dtype)
            self.assertEqual(a.stride(), b.stride())
            self.assertTrue(torch.equal(a.nan_to_num(1234.5), b.nan_to_num(1234.5)))

    def test_fallback_inputs(self):
        x = torch.randn(2, 3, 4, 5, 6)
        up = lambda t, *scales: torch.ops.aten._upsample_nearest_exact3d(t, [8, 10, 12], *scales)
        up_backward = lambda g, *scales: torch.ops.aten._upsample_nearest_exact3d_backward(
            g, [8, 10, 12], [2, 3, 4, 5, 6], *scales)
        g = torch.randn(2, 3, 8, 10, 12)
        cases = [
            ("float64 upsample", lambda: up(x.double(), None, None, None), "upsample_nearest_exact3d"),
            ("float16 upsample", lambda: up(x.half(), None, None, None), "upsample_nearest_exact3d"),
            ("one scale given", lambda: up(x, 2.0, None, None), "upsample_nearest_exact3d"),
            ("two scales given", lambda: up(x, 2.0, 2.0, None), "upsample_nearest_exact3d"),
            ("scales disagreeing with the size", lambda: up(x, 3.0, 3.0, 3.0), "upsample_nearest_exact3d"),
            ("float64 upsample backward", lambda: up_backward(g.double(), None, None, None),
             "upsample_nearest_exact3d_backward"),
            ("one scale given, backward", lambda: up_backward(g, None, 2.5, None),
             "upsample_nearest_exact3d_backward"),
            ("float64 batch norm", lambda: torch.native_batch_norm(
                x.double(), None, None, None, None, True, 0.1, 1e-5), "native_batch_norm"),
            ("float16 batch norm", lambda: torch.native_batch_norm(
                x.half(), None, None, None, None, True, 0.1, 1e-5), "native_batch_norm"),
            ("one value per channel", lambda: torch.native_batch_norm(
                x[0, :, 0, 0, :1].reshape(1, 3), None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5),
             "native_batch_norm"),
            ("mixed channel dtypes", lambda: torch.native_batch_norm(
                x.bfloat16(), torch.ones(3, dtype=torch.bfloat16), None, torch.zeros(3), torch.ones(3), True, 0.1,
                1e-5), "native_batch_norm"),
            ("float64 batch norm backward", lambda: torch.ops.aten.native_batch_norm_backward(
                x.double(), x.double(), None, None, None, torch.zeros(3, dtype=torch.float64),
                torch.ones(3, dtype=torch.float64), True, 1e-5, [True, True, True]), "native_batch_norm_backward"),
            ("gradient dtype differs", lambda: torch.ops.aten.native_batch_norm_backward(
                x.bfloat16(), x, None, None, None, torch.zeros(3), torch.ones(3), True, 1e-5, [True, True, True]),
             "native_batch_norm_backward"),
        ]
        # The upsample family: calls whose scales the API's rule cannot express, dtypes it
        # does not map.
        x4, x3, g5 = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4), torch.randn(2, 3, 2, 8, 10)
        cases += [
            ("nearest2d, one of two scales (all or none)", lambda: A.upsample_nearest2d(x4, [8, 10], 2.0, None),
             "upsample_nearest2d"),
            ("nearest1d, a scale no float holds (float parameter)", lambda: A.upsample_nearest1d(x3, [6], 1.7),
             "upsample_nearest1d"),
            ("bilinear2d, scales disagreeing with the size (used only when consistent)",
             lambda: A.upsample_bilinear2d(x4, [9, 10], False, 2.0, 2.0), "upsample_bilinear2d"),
            ("trilinear3d backward, two of three scales", lambda: A.upsample_trilinear3d_backward(
                g5, [2, 8, 10], [2, 3, 1, 4, 5], False, None, 2.0, 2.0),
             "upsample_trilinear3d_backward"),
            ("float64 bicubic", lambda: A.upsample_bicubic2d(x4.double(), [8, 10], True, None, None),
             "upsample_bicubic2d"),
            ("float16 nearest-exact", lambda: A._upsample_nearest_exact2d(x4.half(), [8, 10], None, None),
             "upsample_nearest_exact2d"),
            ("bilinear .out of another shape (stock resizes)", lambda: A.upsample_bilinear2d.out(
                x4, [8, 10], False, None, None, out=torch.empty(0)), "upsample_bilinear2d.out"),
        ]
        # Group and layer norm: stock's rules stay (its errors included).
        xn, mean, rstd = torch.randn(2, 4, 3, 5), torch.zeros(2, 2), torch.ones(2, 2)
        cases += [
            ("group norm, float64", lambda: torch.native_group_norm(xn.double(), None, None, 2, 4, 15, 2, 1e-5),
             "native_group_norm"),
            ("group norm, neither contiguous nor channels-last", lambda: torch.native_group_norm(
                xn.transpose(2, 3), None, None, 2, 4, 15, 2, 1e-5), "native_group_norm"),
            ("group norm, bf16 input with fp32 weight", lambda: torch.native_group_norm(
                xn.bfloat16(), torch.ones(4), None, 2, 4, 15, 2, 1e-5), "native_group_norm"),
            ("group norm, eps 0", lambda: torch.native_group_norm(xn, None, None, 2, 4, 15, 2, 0.0),
             "native_group_norm"),
            ("group norm backward, weight gradient without weight", lambda: A.native_group_norm_backward(
                xn, xn, mean, rstd, None, 2, 4, 15, 2, [True, True, False]), "native_group_norm_backward"),
            ("layer norm, bf16 input with fp32 weight", lambda: torch.native_layer_norm(
                xn.bfloat16(), [5], torch.ones(5), None, 1e-5), "native_layer_norm"),
            ("layer norm, normalized shape not the input's trailing dims", lambda: torch.native_layer_norm(
                xn, [4], None, None, 1e-5), "native_layer_norm"),
            ("layer norm backward, bias gradient without bias", lambda: A.native_layer_norm_backward(
                xn, xn, [5], torch.zeros(2, 4, 3, 1), torch.ones(2, 4, 3, 1), torch.ones(5), None,
                [True, True, True]), "native_layer_norm_backward"),
        ]
        for name, fn, kernel in cases:
            with self.subTest(name):
                self.assert_same_as_stock(fn, kernel)

    def test_missing_statistics_raise_instead_of_crashing(self):
        # PyTorch 1.13's CPU kernels crash (SIGSEGV) on these; enabled, they raise.
        x = torch.randn(2, 3, 4)
        calls = [
            lambda: torch.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5),
            lambda: torch.native_batch_norm(x, None, None, torch.zeros(3), None, False, 0.1, 1e-5),
            lambda: torch.ops.aten.native_batch_norm_backward(x, x, None, None, None, torch.zeros(3), torch.ones(3),
                                                              False, 1e-5, [True, True, True]),
            lambda: torch.ops.aten.native_batch_norm_backward(x, x, None, torch.zeros(3), torch.ones(3), None, None,
                                                              True, 1e-5, [True, True, True]),
        ]
        with oa.enabled():
            for call in calls:
                with self.assertRaisesRegex(RuntimeError, "needs (running_mean and running_var|save_mean and save_invstd)"):
                    call()

    def test_empty_inputs(self):
        # Upsample: the same empty results as stock.
        x = torch.randn(0, 3, 4, 5, 6)
        run = lambda: torch.ops.aten._upsample_nearest_exact3d(x, [8, 10, 12], None, None, None)
        self.assert_identical(self.ours(run, "upsample_nearest_exact3d"), stock(run))
        g = torch.randn(0, 3, 8, 10, 12)
        run = lambda: torch.ops.aten._upsample_nearest_exact3d_backward(g, [8, 10, 12], [0, 3, 4, 5, 6], None, None,
                                                                         None)
        self.assert_identical(self.ours(run, "upsample_nearest_exact3d_backward"), stock(run))
        # Batch norm: PyTorch 1.13's CPU kernels die with SIGFPE on an empty batch (nn.BatchNorm
        # never passes one to them), so there is no stock result to compare with; enabled,
        # the operators' documented results come back: no statistics (mean 0, invstd NaN),
        # running statistics untouched, zero parameter gradients.
        running_mean, running_var = torch.rand(3), torch.rand(3) + 0.5
        saved = running_mean.clone(), running_var.clone()
        y, save_mean, save_invstd = self.ours(lambda: torch.native_batch_norm(
            torch.randn(0, 3, 4), None, None, running_mean, running_var, True, 0.1, 1e-5), "native_batch_norm")
        self.assertEqual(y.shape, (0, 3, 4))
        self.assertTrue(torch.equal(save_mean, torch.zeros(3)))
        self.assertTrue(save_invstd.isnan().all())
        self.assertTrue(torch.equal(running_mean, saved[0]) and torch.equal(running_var, saved[1]))
        y, save_mean, _ = self.ours(lambda: torch.native_batch_norm(
            torch.randn(0, 3, 4), None, None, running_mean, running_var, False, 0.1, 1e-5), "native_batch_norm")
        self.assertEqual((y.shape, save_mean.shape), ((0, 3, 4), (0,)))
        grads = self.ours(lambda: torch.ops.aten.native_batch_norm_backward(
            torch.randn(0, 3, 4), torch.randn(0, 3, 4), torch.ones(3), None, None, torch.zeros(3), torch.ones(3), True,
            1e-5, [True, True, True]), "native_batch_norm_backward")
        self.assertEqual(grads[0].shape, (0, 3, 4))
        self.assertTrue(torch.equal(grads[1], torch.zeros(3)) and torch.equal(grads[2], torch.zeros(3)))

    def test_gradcheck_float64_through_the_fallback(self):
        before = oa.call_counts()
        with oa.enabled():
            x = torch.randn(1, 2, 2, 3, 2, dtype=torch.float64, requires_grad=True)
            self.assertTrue(torch.autograd.gradcheck(
                lambda t: F.interpolate(t, scale_factor=1.7, mode="nearest-exact"), (x,)))
            y = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
            w = torch.rand(2, dtype=torch.float64, requires_grad=True)
            b = torch.rand(2, dtype=torch.float64, requires_grad=True)
            self.assertTrue(torch.autograd.gradcheck(
                lambda t, weight, bias: F.batch_norm(t, None, None, weight, bias, training=True), (y, w, b)))
        for kernel in ("upsample_nearest_exact3d", "upsample_nearest_exact3d_backward", "native_batch_norm",
                       "native_batch_norm_backward"):
            ran, fell_back = counts_delta(before, kernel)
            self.assertEqual(ran, 0, kernel)
            self.assertGreater(fell_back, 0, kernel)


A = torch.ops.aten
# ATen's own CPU kernels under ATEN_CPU_CAPABILITY=default (ctest's baseline run): the
# interpolating upsample forwards are bit-identical to those; torch's AVX2/AVX-512 kernels
# differ from its own default ones in the last bits, so there the check is closeness.
TORCH_DEFAULT_KERNELS = os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "default"

# The upsample family: (call_counts key, forward, backward, spatial dims, takes align_corners).
UPSAMPLE_OPS = [
    ("upsample_nearest1d", A.upsample_nearest1d, A.upsample_nearest1d_backward, 1, False),
    ("upsample_nearest2d", A.upsample_nearest2d, A.upsample_nearest2d_backward, 2, False),
    ("upsample_nearest3d", A.upsample_nearest3d, A.upsample_nearest3d_backward, 3, False),
    ("upsample_nearest_exact1d", A._upsample_nearest_exact1d, A._upsample_nearest_exact1d_backward, 1, False),
    ("upsample_nearest_exact2d", A._upsample_nearest_exact2d, A._upsample_nearest_exact2d_backward, 2, False),
    ("upsample_linear1d", A.upsample_linear1d, A.upsample_linear1d_backward, 1, True),
    ("upsample_bilinear2d", A.upsample_bilinear2d, A.upsample_bilinear2d_backward, 2, True),
    ("upsample_bicubic2d", A.upsample_bicubic2d, A.upsample_bicubic2d_backward, 2, True),
    ("upsample_trilinear3d", A.upsample_trilinear3d, A.upsample_trilinear3d_backward, 3, True),
    ("upsample_bilinear2d_aa", A._upsample_bilinear2d_aa, A._upsample_bilinear2d_aa_backward, 2, True),
    ("upsample_bicubic2d_aa", A._upsample_bicubic2d_aa, A._upsample_bicubic2d_aa_backward, 2, True),
]


def torch_generic(run, x):
    """run(x) by torch's generic per-axis loop: on two copies of x stacked on the batch axis,
    rows padded, so its TensorIterator can coalesce no axis. torch's bits vary in the last
    place with its loop choice (a contiguous or one-row input, channels-last, AVX2's fused
    multiply-adds); openaclnn's interpolating forwards are this loop's bits."""
    pair = torch.cat([x, x], 0)
    padded = torch.zeros(list(pair.shape[:-1]) + [pair.shape[-1] + 1], dtype=x.dtype)
    padded[..., :-1] = pair
    return run(padded[..., :-1])[:x.shape[0]]


class UpsampleCall:
    """One call of an upsample operator: input shape, output size, align_corners, scales."""

    def __init__(self, op, rng):
        self.kernel, self.forward_op, self.backward_op, spatial, self.interpolating = op
        self.shape = [rng.randint(1, 2), rng.randint(1, 3)] + [rng.randint(1, 6) for _ in range(spatial)]
        self.align = [rng.random() < 0.5] if self.interpolating else []
        if rng.random() < 0.4:
            self.size = [rng.randint(1, 2 * n + 2) for n in self.shape[2:]]
            self.scales = [None] * spatial
        else:  # scales torch uses per axis (some calls then run stock's kernel: see the rules)
            self.scales = [rng.choice([0.5, 0.75, 1.5, 2.0, 2.5, 3.0]) for _ in range(spatial)]
            self.size = [max(1, int(math.floor(n * s))) for n, s in zip(self.shape[2:], self.scales)]
        self.out_shape = self.shape[:2] + self.size

    def forward(self, x):
        return self.forward_op(x, self.size, *self.align, *self.scales)

    def backward(self, grad):
        return self.backward_op(grad, self.size, self.shape, *self.align, *self.scales)

    def __repr__(self):
        return f"{self.kernel} {self.shape} -> {self.size} align {self.align} scales {self.scales}"


class UpsampleFamilyTest(CountingTestCase):
    """Every upsample operator of the family against stock: fp32 forward bit-identical
    (closeness where torch's own vectorized kernels are in use), nearest backwards
    bit-identical, interpolating backwards and every bf16 result no further from float64 than
    stock's; .out overloads write in place. Each operator must run openaclnn on most cases."""

    CASES = 10

    def layouts(self, call):
        return ("contiguous", "sliced") + (("channels_last",) if len(call.shape) >= 4 else ())

    def run_cases(self, seed, check):
        rng = random.Random(seed)
        for op in UPSAMPLE_OPS:
            ran = 0
            for case in range(self.CASES):
                call = UpsampleCall(op, rng)
                before = oa.call_counts()
                with self.subTest(f"case {case}: {call}"):
                    check(call, rng)
                ran += counts_delta(before, call.kernel)[0] + counts_delta(before, call.kernel + "_backward")[0]
            self.assertGreaterEqual(ran, self.CASES // 2, f"{op[0]}: openaclnn ran on too few cases")

    def enabled(self, fn):
        with oa.enabled():
            return fn()

    def test_fp32_forward_matches_stock(self):
        def check(call, rng):
            x = random_view(call.shape, torch.float32, rng.choice(self.layouts(call)), rng)
            ours = self.enabled(lambda: call.forward(x))
            self.assertEqual(ours.stride(), stock(lambda: call.forward(x)).stride())
            theirs = stock(lambda: torch_generic(call.forward, x))
            if TORCH_DEFAULT_KERNELS or not call.interpolating:
                self.assertTrue(torch.equal(ours, theirs), "values differ")
            else:
                tolerance = 2.0**-18 * max(1.0, x.abs().max().item() if x.numel() else 1.0)
                self.assertLessEqual((ours - theirs).abs().max().item() if ours.numel() else 0.0, tolerance)

        self.run_cases(SEED + 30, check)

    def test_fp32_backward_through_autograd(self):
        def check(call, rng):
            x = random_view(call.shape, torch.float32, rng.choice(self.layouts(call)), rng)
            grad = random_view(call.out_shape, torch.float32, rng.choice(("contiguous", "sliced")), rng)

            def gradient(dtype):
                leaf = x.detach().to(dtype).requires_grad_()
                call.forward(leaf).backward(grad.to(dtype))
                return leaf.grad

            ours, theirs = self.enabled(lambda: gradient(torch.float32)), stock(lambda: gradient(torch.float32))
            if not call.interpolating:
                self.assert_identical(ours, theirs)
                return
            # Both fp32 gradients use fp32 weights and the float64 one float64 weights, so the
            # weights' rounding dominates both errors; the half-ulp rule against the float64 sum
            # of the same fp32 weights is the library's oracle test's (upsample_interp_oracle_test).
            self.assertEqual(ours.stride(), theirs.stride())
            reference = stock(lambda: gradient(torch.float64))
            if reference.numel():
                error = lambda t: (t.double() - reference).abs().max().item()
                self.assertLessEqual(error(ours), 2 * error(theirs) + 2.0**-22 * reference.abs().max().item())

        self.run_cases(SEED + 31, check)

    def test_bf16_no_further_from_float64_than_stock(self):
        def check(call, rng):
            # Where stock 1.13 has no bf16 kernel (nearest-exact and anti-aliased forwards,
            # anti-aliased backwards), ours must be the fp32 result rounded once.
            x = random_view(call.shape, torch.bfloat16, rng.choice(self.layouts(call)), rng)
            grad = random_view(call.out_shape, torch.bfloat16, "contiguous", rng)
            for run, source in ((call.forward, x), (call.backward, grad)):
                ours = self.enabled(lambda: run(source))
                self.assertEqual(ours.dtype, torch.bfloat16)
                try:
                    theirs = stock(lambda: run(source))
                except RuntimeError:
                    fp32 = stock(lambda: run(source.float()))
                    bound = 2.0**-8 * fp32.abs() + 2.0**-20 * (fp32.abs().max() if fp32.numel() else 0)
                    self.assertTrue(bool(((ours.float() - fp32).abs() <= bound).all()), run.__name__)
                    continue
                self.assert_error_at_most_stock(ours, theirs, stock(lambda: run(source.double())), run.__name__)

        self.run_cases(SEED + 32, check)

    def test_out_overloads_write_in_place(self):
        def check(call, rng):
            x = random_view(call.shape, torch.float32, "contiguous", rng)
            grad = random_view(call.out_shape, torch.float32, "contiguous", rng)
            expected_out = self.enabled(lambda: call.forward(x))
            expected_grad_input = self.enabled(lambda: call.backward(grad))
            out = random_view(call.out_shape, torch.float32, rng.choice(("contiguous", "sliced")), rng)
            grad_input = random_view(call.shape, torch.float32, rng.choice(("contiguous", "sliced")), rng)
            before = oa.call_counts()
            with oa.enabled():
                got = call.forward_op.out(x, call.size, *call.align, *call.scales, out=out)
                got_grad = call.backward_op.grad_input(grad, call.size, call.shape, *call.align, *call.scales,
                                                       grad_input=grad_input)
            self.assertEqual((got.data_ptr(), got_grad.data_ptr()), (out.data_ptr(), grad_input.data_ptr()))
            self.assertTrue(torch.equal(out, expected_out) and torch.equal(grad_input, expected_grad_input))
            if counts_delta(before, call.kernel)[0] + counts_delta(before, call.kernel + "_backward")[0] == 0:
                return  # the call's scales are stock's to handle
            self.assertEqual(counts_delta(before, call.kernel + ".out"), (1, 0))
            self.assertEqual(counts_delta(before, call.kernel + "_backward.grad_input"), (1, 0))

        self.run_cases(SEED + 33, check)

    def test_interpolate_modules_run_openaclnn(self):
        x4 = torch.randn(2, 3, 5, 7).contiguous(memory_format=torch.channels_last)
        calls = [
            ("upsample_nearest2d", lambda t: F.interpolate(t, scale_factor=2.0)),
            ("upsample_bilinear2d", lambda t: F.interpolate(t, size=(9, 11), mode="bilinear")),
            ("upsample_bicubic2d", lambda t: F.interpolate(t, scale_factor=2.0, mode="bicubic", align_corners=True)),
            ("upsample_bilinear2d_aa", lambda t: F.interpolate(t, size=(3, 4), mode="bilinear", antialias=True)),
            ("upsample_nearest_exact2d", lambda t: torch.nn.Upsample(scale_factor=1.5, mode="nearest-exact")(t)),
            ("upsample_trilinear3d", lambda t: F.interpolate(t[:, :, None].expand(2, 3, 2, 5, 7), scale_factor=2.0,
                                                              mode="trilinear")),
        ]
        for kernel, fn in calls:
            def run():
                leaf = x4.detach().requires_grad_()
                y = fn(leaf)
                y.backward(torch.ones_like(y))
                return y.detach(), leaf.grad

            with self.subTest(kernel):
                before = oa.call_counts()
                ours = self.ours(run, kernel)
                self.assertEqual(counts_delta(before, kernel + "_backward"), (1, 0), "the backward's kernel")
                theirs = stock(run)
                for a, b in zip(ours, theirs):
                    self.assertEqual(a.stride(), b.stride())
                    self.assertTrue(torch.allclose(a, b, rtol=2.0**-18, atol=2.0**-18))


class NormTest(CountingTestCase):
    """Group norm and layer norm, each operator against a float64 evaluation of the same
    inputs (the backward's statistics are the forward's, in the input's dtype): every output
    and gradient no further from it than stock's; fp32 and bf16, affine or not, both layouts
    (layer norm: strided views). The modules run through autograd too."""

    def compare(self, fn, inputs, kernel, what):
        before = oa.call_counts()
        with oa.enabled():
            ours = fn(*inputs)
        self.assertEqual(counts_delta(before, kernel), (1, 0), f"{what}: {kernel}")
        # Stock's values from contiguous copies: PyTorch 1.13's native_group_norm_backward
        # reads non-contiguous tensors as if they were contiguous (docs/pytorch.md).
        layouts = stock(lambda: fn(*inputs))
        theirs = stock(lambda: fn(*(t.contiguous() if isinstance(t, torch.Tensor) else t for t in inputs)))
        reference = stock(lambda: fn(*(t.double().contiguous() if isinstance(t, torch.Tensor) else t
                                       for t in inputs)))
        for k, (a, b, r, layout) in enumerate(zip(ours, theirs, reference, layouts)):
            if b is None:
                self.assertIsNone(a, f"{what}: output {k}")
                continue
            self.assertEqual(a.stride(), layout.stride(), f"{what}: output {k} strides")
            self.assert_error_at_most_stock(a, b, r, f"{what}: output {k}")

    def check_pair(self, forward, backward, x, weight, bias, rng, kernel, what):
        self.compare(forward, [x, weight, bias], kernel, what)
        _, mean, rstd = stock(lambda: forward(x, weight, bias))
        grad = random_view(list(x.shape), x.dtype, rng.choice(("contiguous", "sliced")), rng)
        mask = [True, weight is not None, bias is not None]
        self.compare(backward, [grad, x, mean, rstd, weight, bias, mask], kernel + "_backward", what + " backward")

    def test_group_norm(self):
        rng = random.Random(SEED + 40)
        for case in range(30):
            groups = rng.randint(1, 4)
            shape = [rng.randint(1, 3), groups * rng.randint(1, 3)] + [rng.randint(1, 5) for _ in
                                                                       range(rng.choice((0, 1, 2, 3)))]
            dtype = rng.choice((torch.float32, torch.bfloat16))
            layout = "channels_last" if len(shape) in (4, 5) and rng.random() < 0.5 else "contiguous"
            x = random_view(shape, dtype, layout, rng, scale=2.0, offset=1.0)
            affine = rng.random() < 0.7
            weight = random_view([shape[1]], dtype, "contiguous", rng) if affine else None
            bias = random_view([shape[1]], dtype, "contiguous", rng) if affine else None
            n, c, hxw = shape[0], shape[1], math.prod(shape[2:])
            forward = lambda t, w, b: torch.native_group_norm(t, w, b, n, c, hxw, groups, EPS)
            backward = lambda g, t, m, r, w, b, mask: A.native_group_norm_backward(g, t, m, r, w, n, c, hxw, groups,
                                                                                   mask)
            self.check_pair(forward, backward, x, weight, bias, rng, "native_group_norm",
                            f"case {case} {shape} {dtype} {layout} groups {groups} affine {affine}")

    def test_layer_norm(self):
        rng = random.Random(SEED + 41)
        for case in range(30):
            shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 4))]
            normalized = shape[len(shape) - rng.randint(1, len(shape)):]
            dtype = rng.choice((torch.float32, torch.bfloat16))
            layout = rng.choice(("contiguous", "sliced"))
            x = random_view(shape, dtype, layout, rng, scale=2.0, offset=1.0)
            weight = random_view(normalized, dtype, "contiguous", rng) if rng.random() < 0.7 else None
            bias = random_view(normalized, dtype, "contiguous", rng) if weight is not None else None
            forward = lambda t, w, b: torch.native_layer_norm(t, normalized, w, b, EPS)
            backward = lambda g, t, m, r, w, b, mask: A.native_layer_norm_backward(g, t, normalized, m, r, w, b, mask)
            self.check_pair(forward, backward, x, weight, bias, rng, "native_layer_norm",
                            f"case {case} {shape} {normalized} {dtype} {layout} affine {weight is not None}")

    def test_modules_through_autograd(self):
        x = torch.randn(2, 8, 5, 6).contiguous(memory_format=torch.channels_last)
        for kernel, module in (("native_group_norm", torch.nn.GroupNorm(4, 8)),
                               ("native_layer_norm", torch.nn.LayerNorm([5, 6]))):
            def run():
                leaf = x.detach().requires_grad_()
                module.zero_grad()
                y = module(leaf)
                y.backward(torch.ones_like(y))
                return y.detach(), leaf.grad, module.weight.grad

            with self.subTest(kernel):
                ours = self.ours(run, kernel)
                theirs = stock(run)
                for a, b in zip(ours, theirs):
                    self.assertEqual(a.stride(), b.stride())
                    self.assertTrue(torch.allclose(a, b, rtol=1e-5, atol=1e-5))


class SimdTargetTest(unittest.TestCase):
    def test_dispatched_target_is_the_one_asked_for(self):
        # ctest runs this file on the best SIMD target and on the baseline (OPENACLNN_SIMD).
        wanted = os.environ.get("OPENACLNN_SIMD")
        if not wanted:
            self.skipTest("OPENACLNN_SIMD not set")
        report = dict(line.split(": ", 1) for line in oa.system_report().splitlines() if ": " in line)
        self.assertEqual(report["simd.dispatched"], wanted)


class ThreadsTest(CountingTestCase):
    def test_system_report_names_torchs_thread_count(self):
        saved = torch.get_num_threads()
        try:
            for threads in (1, 2):
                torch.set_num_threads(threads)
                report = dict(line.split(": ", 1) for line in oa.system_report().splitlines() if ": " in line)
                self.assertEqual(report["threads"], "%d (from openaclnnSetNumThreads)" % threads)
        finally:
            torch.set_num_threads(saved)

    def test_threads_follow_torch_and_results_do_not_depend_on_them(self):
        saved = torch.get_num_threads()
        x = random_view([4, 16, 9, 10, 11], torch.float32, "channels_last", random.Random(SEED + 20), offset=2)
        g = torch.randn(4, 16, 23, 24, 26)
        results = []
        try:
            for threads in (1, 2, 3):
                torch.set_num_threads(threads)

                def run():
                    up = torch.ops.aten._upsample_nearest_exact3d_backward(g, [23, 24, 26], list(x.shape), None,
                                                                            None, None)
                    bn = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
                    return (up,) + tuple(bn)

                results.append(self.ours(run, "native_batch_norm"))
                self.assertEqual(oa.library_threads(), threads)
        finally:
            torch.set_num_threads(saved)
        for other in results[1:]:
            for a, b in zip(results[0], other):
                self.assertTrue(torch.equal(a, b))


    def test_torch_pool_and_own_pool_give_the_same_bits(self):
        # 8 MiB activations: above the size openaclnn's launch would otherwise hand to its
        # stream's thread, so the regions reach torch's pool from this thread.
        saved = torch.get_num_threads()
        x = random_view([4, 16, 32, 32, 32], torch.float32, "contiguous", random.Random(SEED + 21))
        g = torch.randn(4, 16, 48, 48, 48)

        def run():
            up = torch.ops.aten._upsample_nearest_exact3d_backward(g, [48, 48, 48], list(x.shape), None, None, None)
            bn = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
            trilinear = A.upsample_trilinear3d(x, [40, 40, 40], False, None, None, None)
            group_norm = torch.native_group_norm(x, None, None, 4, 16, 32 ** 3, 4, EPS)
            layer_norm = torch.native_layer_norm(x, [32, 32], None, None, EPS)
            return (up, trilinear) + tuple(bn) + tuple(group_norm) + tuple(layer_norm)

        try:
            torch.set_num_threads(1)
            oa.use_torch_pool(False)
            reference = self.ours(run, "native_batch_norm")
            for threads in (1, 2, 3):
                torch.set_num_threads(threads)
                for torch_pool in (True, False):
                    oa.use_torch_pool(torch_pool)
                    before = oa.torch_pool_regions(), oa.torch_pool_shared_regions()
                    results = self.ours(run, "native_batch_norm")
                    regions = oa.torch_pool_regions() - before[0]
                    shared = oa.torch_pool_shared_regions() - before[1]
                    for a, b in zip(reference, results):
                        self.assertTrue(torch.equal(a, b), "threads %d, torch pool %s" % (threads, torch_pool))
                    if torch_pool and threads > 1:
                        self.assertGreater(regions, 0, "the regions must run on torch's pool")
                        # at::parallel_for runs its range on the calling thread alone when the
                        # caller is compiled without OpenMP: the regions must really be shared.
                        self.assertGreater(shared, 0, "the regions must run on more than one of torch's threads")
                    else:
                        self.assertEqual(regions, 0)
        finally:
            oa.use_torch_pool(True)
            torch.set_num_threads(saved)


class RoutingTest(CountingTestCase):
    """Never slower: below a route's size stock's kernel runs, from it openaclnn's; the .out
    overload shares its operator's route; routing off runs openaclnn's at every size."""

    def test_routes_pick_the_kernel_by_size_layout_and_threads(self):
        saved = torch.get_num_threads()
        small = torch.randn(2, 4, 3, 3, 3)
        large = torch.randn(2, 4, 6, 6, 6)
        run = lambda x: (lambda: torch.native_batch_norm(x, None, None, None, None, True, 0.1, EPS))
        try:
            torch.set_num_threads(1)
            oa.set_routing(True)
            oa.clear_routes()
            # Measured: stock faster at small's size, openaclnn from large's.
            oa.set_route("native_batch_norm", False, 1, small.numel(), False)
            oa.set_route("native_batch_norm", False, 1, large.numel(), True)
            self.fallback(run(small), "native_batch_norm")
            self.ours(run(large), "native_batch_norm")
            self.fallback(run(torch.randn(2, 4, 2, 2, 2)), "native_batch_norm")  # below every size: the smallest's
            # Channels-last has no row: openaclnn's kernel; nor has strided, until it gets one.
            self.ours(run(small.contiguous(memory_format=torch.channels_last_3d)), "native_batch_norm")
            sliced = torch.randn(2, 8, 3, 3, 3)[:, :4]
            self.ours(run(sliced), "native_batch_norm")
            oa.set_route("native_batch_norm", "strided", 1, 0, False)
            self.fallback(run(sliced), "native_batch_norm")
            self.ours(run(small.contiguous(memory_format=torch.channels_last_3d)), "native_batch_norm")
            # 2 threads use the 1-thread row (the largest measured below) until they have their own.
            torch.set_num_threads(2)
            self.fallback(run(small), "native_batch_norm")
            self.ours(run(large), "native_batch_norm")
            oa.set_route("native_batch_norm", False, 2, 0, False)
            self.fallback(run(large), "native_batch_norm")
            # The .out overload follows its operator's route.
            oa.set_route("upsample_nearest_exact3d", False, 2, 0, False)
            out = torch.empty(2, 4, 6, 6, 6)
            self.fallback(lambda: torch.ops.aten._upsample_nearest_exact3d.out(small, [6, 6, 6], None, None, None,
                                                                               out=out),
                          "upsample_nearest_exact3d.out")
            oa.set_routing(False)
            self.ours(run(small), "native_batch_norm")
        finally:
            oa.set_routing(True)
            torch.set_num_threads(saved)
            oa.load_routes()

    def test_norm_routes_tell_row_lengths_apart(self):
        # Same elements, same layout and threads; the row (a layer's or a group's elements)
        # picks the class: the longest measured row not above the call's, else the shortest.
        saved = torch.get_num_threads()
        layer = lambda rows, hidden: (lambda: torch.native_layer_norm(torch.randn(rows, hidden), [hidden], None,
                                                                      None, EPS))
        group = lambda c, groups: (lambda: torch.native_group_norm(torch.randn(2, c, 64), None, None, 2, c, 64,
                                                                   groups, EPS))
        try:
            torch.set_num_threads(1)
            oa.set_routing(True)
            oa.clear_routes()
            oa.set_route("native_layer_norm", False, 1, 0, True, row_length=32)
            oa.set_route("native_layer_norm", False, 1, 0, False, row_length=256)
            oa.set_route("native_layer_norm", False, 1, 4096, True, row_length=256)
            self.ours(layer(64, 32), "native_layer_norm")
            self.ours(layer(32, 64), "native_layer_norm")  # between: the 32 class
            self.ours(layer(128, 16), "native_layer_norm")  # below every row: the shortest's
            self.fallback(layer(8, 256), "native_layer_norm")  # 2048 elements: below the 4096 point
            self.ours(layer(16, 256), "native_layer_norm")
            self.fallback(layer(4, 512), "native_layer_norm")  # the 256 class, 2048 elements
            oa.set_route("native_group_norm", False, 1, 0, False, row_length=64)
            oa.set_route("native_group_norm", False, 1, 0, True, row_length=256)
            self.fallback(group(8, 8), "native_group_norm")  # rows of 1 * 64
            self.fallback(group(8, 4), "native_group_norm")  # 2 * 64: still the 64 class
            self.ours(group(8, 2), "native_group_norm")  # 4 * 64
            self.ours(group(8, 1), "native_group_norm")  # 8 * 64 = 512: the 256 class
        finally:
            oa.set_routing(True)
            torch.set_num_threads(saved)
            oa.load_routes()

    def test_the_packaged_table_is_loaded(self):
        # Every operator has measured routes at 1 and 2 threads for each layout it has
        # (.out overloads share their operator's).
        table = oa.routes()
        self.assertTrue(table, "routing.csv is missing or empty")
        operators = {k for k in oa.KERNELS if not k.endswith((".out", ".grad_input"))}
        self.assertEqual({kernel for kernel, _, _, _ in table}, operators)
        for kernel in operators:
            layouts = {layout for k, layout, _, _ in table if k == kernel}
            self.assertTrue({"contiguous", "strided"} <= layouts or kernel == "native_group_norm", kernel)
            for layout in layouts:
                self.assertEqual({t for k, l, t, _ in table if k == kernel and l == layout}, {1, 2}, (kernel, layout))
                rows = {r for k, l, _, r in table if k == kernel and l == layout}
                # The norms' contiguous routes measured several row lengths; the others have none.
                if kernel.startswith(("native_group_norm", "native_layer_norm")) and layout == "contiguous":
                    self.assertGreater(len(rows), 1, (kernel, layout))
                elif not kernel.startswith(("native_group_norm", "native_layer_norm")):
                    self.assertEqual(rows, {0}, (kernel, layout))


class Eps0Test(CountingTestCase):
    """Review item 2: eps = 0 in training. PyTorch defines invstd = 0 where a channel's batch
    variance is 0, CANN's formula gives inf; the extension gives stock's results (its kernels,
    forward and backward)."""

    def test_constant_channel_with_eps_0_gives_stocks_results(self):
        torch.manual_seed(0)
        x0 = torch.randn(2, 3, 5)
        x0[:, 1] = 2.0  # channel 1 is constant: variance 0

        def step():
            bn = torch.nn.BatchNorm1d(3, eps=0.0)
            x = x0.clone().requires_grad_()
            y = bn(x)
            y.backward(torch.linspace(-1.0, 1.0, y.numel()).reshape(y.shape))
            return y.detach(), x.grad, bn.weight.grad, bn.bias.grad, bn.running_mean, bn.running_var

        before = oa.call_counts()
        with oa.enabled():
            ours = step()
        for kernel in ("native_batch_norm", "native_batch_norm_backward"):
            ran, fell_back = counts_delta(before, kernel)
            self.assertEqual(ran, 0, f"eps = 0 in training must run PyTorch's {kernel}")
            self.assertGreater(fell_back, 0, kernel)
        theirs = stock(step)
        for a, b, what in zip(ours, theirs, ("y", "x.grad", "weight.grad", "bias.grad", "running_mean",
                                             "running_var")):
            self.assertTrue(torch.isfinite(a).all(), what)
            self.assertTrue(torch.equal(a, b), what)

    def test_eps_0_inference_and_nonzero_eps_still_run_openaclnn(self):
        x = torch.randn(4, 3, 6)
        self.ours(lambda: torch.native_batch_norm(x, None, None, torch.zeros(3), torch.ones(3), False, 0.1, 0.0),
                  "native_batch_norm")
        self.ours(lambda: torch.native_batch_norm(x, None, None, None, None, True, 0.1, EPS), "native_batch_norm")


FORK_CHILD_SECONDS = 60


class ForkTest(CountingTestCase):
    """Review item 1: a DataLoader-style worker forked after enabled calls works. The parent
    runs a batch norm large enough to be queued on the stream's worker (> 4 MiB) on torch's
    pool at 2 threads; each child (1 and 2 threads) runs it again and must get the parent's
    bits. GNU libgomp's team does not survive fork: a child whose parent ran an OpenMP region
    waits for ever in its own first region of 2 threads, stock PyTorch's kernels included. So
    a forked child runs openaclnn's regions on openaclnn's own pool (rebuilt by the library's
    fork handlers), and compares its bits at 1 thread, as a DataLoader worker runs."""

    def test_forked_worker_runs_enabled_calls(self):
        saved = torch.get_num_threads()
        try:
            torch.set_num_threads(2)
            x = torch.randn(32, 8, 64, 64, generator=torch.Generator().manual_seed(SEED))
            run = lambda: torch.native_batch_norm(x, None, None, None, None, True, 0.1, EPS)
            shared_before = oa.torch_pool_shared_regions()
            parent = self.ours(run, "native_batch_norm")
            self.assertGreater(oa.torch_pool_shared_regions() - shared_before, 0,
                               "the parent must have run a region on 2 of torch's threads")
            for threads in (1, 2):
                read_end, write_end = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child: report through the pipe, never return into unittest
                    status = 1
                    try:
                        signal.alarm(FORK_CHILD_SECONDS)
                        torch.set_num_threads(threads)
                        before = oa.call_counts()["native_batch_norm"][0]
                        regions_before = oa.torch_pool_regions()
                        with oa.enabled():
                            child = run()
                        ran = oa.call_counts()["native_batch_norm"][0] - before
                        torch_pool = oa.torch_pool_regions() - regions_before
                        torch.set_num_threads(1)  # stock's torch.equal: see the class comment
                        same = all(torch.equal(a, b) for a, b in zip(child, parent))
                        os.write(write_end, f"ran={ran} same={same} torch_pool={torch_pool}".encode())
                        status = 0
                    finally:
                        os._exit(status)
                os.close(write_end)
                _, status = os.waitpid(pid, 0)
                report = os.read(read_end, 256).decode()
                os.close(read_end)
                self.assertFalse(os.WIFSIGNALED(status),
                                 f"{threads} thread(s): the child was killed by signal {os.WTERMSIG(status)}"
                                 if os.WIFSIGNALED(status) else "")
                self.assertEqual(os.WEXITSTATUS(status), 0, report)
                self.assertEqual(report, "ran=1 same=True torch_pool=0", f"{threads} thread(s)")
        finally:
            torch.set_num_threads(saved)


if __name__ == "__main__":
    unittest.main(verbosity=2)
