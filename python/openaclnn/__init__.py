"""openaclnn: CANN's aclnn operators on the CPU.

``openaclnn.torch`` puts openaclnn's kernels under PyTorch's own CPU operators; see
docs/pytorch.md.
"""
