"""openaclnn's kernels as PyTorch's CPU kernels, switchable at run time.

While enabled, these PyTorch operators (each with its ``.out`` / ``.grad_input`` overload
where it has one) run openaclnn's operators on CPU tensors:

* the upsample family, forward and backward: ``aten::upsample_nearest1d/2d/3d``,
  ``aten::_upsample_nearest_exact1d/2d/3d``, ``aten::upsample_linear1d``,
  ``aten::upsample_bilinear2d``, ``aten::upsample_bicubic2d``, ``aten::upsample_trilinear3d``,
  ``aten::_upsample_bilinear2d_aa``, ``aten::_upsample_bicubic2d_aa`` (aclnnUpsample*)
* ``aten::native_batch_norm`` and its backward: aclnnBatchNorm, aclnnBatchNormBackward
* ``aten::native_group_norm`` and its backward: aclnnGroupNorm, aclnnGroupNormBackward
* ``aten::native_layer_norm`` and its backward: aclnnLayerNorm, aclnnLayerNormBackward

so ``torch.nn.Upsample`` / ``F.interpolate`` in every mode, ``torch.nn.BatchNorm1d/2d/3d``,
``torch.nn.GroupNorm`` and ``torch.nn.LayerNorm`` with their autograd use them without any
change to user code. Inputs the operators do not take (float64, float16, other devices,
scales an API's rule cannot express, ...) run PyTorch's own kernel; empty tensors are taken
like any other (there is nothing to compute). Where stock PyTorch measured faster (the
packaged ``routing.csv``: operator, layout of the largest input, thread count, the norms'
row length and size),
stock's kernel runs too (``set_routing``). ``disable()`` restores PyTorch's kernels. docs/pytorch.md has
the rules.
"""
import contextlib
import csv
import os

import torch as _torch

_torch.ops.load_library(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_openaclnn_torch.so"))
_ops = _torch.ops.openaclnn

#: Kernel names (ATen operator overloads without a leading underscore), in the order of
#: :func:`call_counts`.
KERNELS = tuple(str(name) for name in _ops.kernel_names())


def enable():
    """Run openaclnn's operators under PyTorch's CPU operators (idempotent)."""
    _ops.enable()


def disable():
    """Restore PyTorch's own CPU kernels (idempotent)."""
    _ops.disable()


def is_enabled():
    return bool(_ops.is_enabled())


@contextlib.contextmanager
def enabled():
    """Enable for the duration of a ``with`` block; the previous state is restored."""
    was_enabled = is_enabled()
    enable()
    try:
        yield
    finally:
        if not was_enabled:
            disable()


def call_counts():
    """{kernel: (calls openaclnn ran, calls handed to PyTorch's kernel)} since the last reset."""
    counts = list(_ops.call_counts())
    half = len(KERNELS)
    return {name: (counts[i], counts[half + i]) for i, name in enumerate(KERNELS)}


def reset_call_counts():
    _ops.reset_call_counts()


def library_threads():
    """Threads openaclnn's last call planned with: torch.get_num_threads() at that call."""
    return int(_ops.library_threads())


def use_torch_pool(use=True):
    """Where openaclnn's parallel regions run while enabled: on PyTorch's intra-op pool (True,
    the default: one set of threads, torch's) or on openaclnn's own pool (False). The results
    are bitwise the same either way."""
    _ops.use_torch_pool(bool(use))


def torch_pool_regions():
    """openaclnn parallel regions run on PyTorch's pool so far (through at::parallel_for)."""
    return int(_ops.torch_pool_regions())


def torch_pool_shared_regions():
    """Of torch_pool_regions(), those whose tasks ran on more than one of PyTorch's threads."""
    return int(_ops.torch_pool_shared_regions())


def set_routing(on=True):
    """Never slower (on, the default): a call of a size, layout and thread count where stock
    PyTorch measured faster (routes(), from routing.csv) runs stock's kernel. Off: every call
    openaclnn takes runs openaclnn's kernel (tests of exactness)."""
    _ops.set_routing(bool(on))


def routing():
    return bool(_ops.routing())


#: The layouts routes tell apart (routing.csv's layout column): contiguous, channels-last
#: (4-D / 5-D, not also contiguous) and strided (neither: a slice, a transposed view).
LAYOUTS = ("contiguous", "channels_last", "strided")


def set_route(kernel, layout, threads, elements, use_openaclnn, row_length=0):
    """One measured point of a route: calls of `kernel` (a name of KERNELS; .out overloads
    share their operator's route) whose largest input has `layout` (a name of LAYOUTS; True
    and False mean channels_last and contiguous), at that thread count (and more, up to the
    next measured count), sized from `elements` elements of that input up to the next
    measured size, run openaclnn's kernel if use_openaclnn, else stock's. The norms' routes
    also tell row lengths apart (a group's elements, (C / G) * HxW, or a layer's, the
    normalized shape's): a point with `row_length` serves calls from that row length up to
    the next measured one (the shortest's serve shorter rows); other kernels' rows are 0."""
    if isinstance(layout, bool):
        layout = LAYOUTS[1] if layout else LAYOUTS[0]
    _ops.set_route(KERNELS.index(kernel), LAYOUTS.index(layout), int(threads), int(row_length), int(elements),
                   bool(use_openaclnn))


def routes():
    """The routes loaded from routing.csv: {(kernel, layout, threads, row_length): {elements: use_openaclnn}}."""
    return {key: dict(points) for key, points in _ROUTES.items()}


def clear_routes():
    """Forgets every route: openaclnn's kernel for every call it takes, until load_routes()."""
    _ops.clear_routes()


def load_routes(path=None):
    """Replaces the routes by those of a routing table (default: the packaged routing.csv)."""
    global _ROUTES
    _ROUTES = _load_routes(path or _PACKAGED_ROUTES)


def _load_routes(path):
    table = {}
    if os.path.isfile(path):
        with open(path) as f:
            for row in csv.DictReader(line for line in f if not line.startswith("#")):
                key = (row["kernel"], row["layout"], int(row["threads"]), int(row.get("row_length") or 0))
                table.setdefault(key, {})[int(row["elements"])] = row["use_openaclnn"] == "1"
    _ops.clear_routes()
    for (kernel, layout, threads, row_length), points in table.items():
        for elements, use in points.items():
            set_route(kernel, layout, threads, elements, use, row_length)
    return table


def system_report():
    """openaclnn's report of this machine: SIMD targets (available, dispatched), threads (torch's
    current count, which every call through the extension plans with), caches."""
    return str(_ops.system_report())


_PACKAGED_ROUTES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "routing.csv")
_ROUTES = _load_routes(_PACKAGED_ROUTES)
