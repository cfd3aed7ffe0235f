# The two commands of the README, plus the benchmark, the large tier and the presets.
# Each target installs missing Debian packages first (as root; otherwise it says what to run).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
# Tests run one per CPU (those that time themselves are RUN_SERIAL in their CMakeLists).
CTEST_FLAGS := --output-on-failure --no-tests=error -j$(shell nproc)
# Each stage of `make test` runs under scripts/stage.sh, which records its wall time for the
# stage table printed at the end (scripts/stage-table.sh).
STAGE := scripts/stage.sh

.PHONY: help deps deps-minimal deps-package deps-fuzz deps-pytorch deps-bench deps-aarch64 demo demo-pytorch package test test-all mutation-check test-release test-asan test-tsan test-large test-aarch64 test-fuzz bench fuzz fuzz-run clean

help:
	@echo "make demo   - build and run the example programs (prints what they compute), then a PyTorch"
	@echo "              training step with and without openaclnn.torch"
	@echo "make test   - build and run the whole test suite: release (with the PyTorch oracle),"
	@echo "              AddressSanitizer+UBSan unit tests, ThreadSanitizer stream tests,"
	@echo "              the AArch64 unit tests under qemu (NEON, SVE/SVE2)"
	@echo "make test-large - the slow tier (large problems)"
	@echo "make test-aarch64 - cross-build for AArch64, run the unit tests under qemu-aarch64 on NEON and SVE/SVE2 (128, 256, 512 bits)"
	@echo "make package - Debian packages openaclnn, openaclnn-dev, openaclnn-hccl and openaclnn-hccl-dev in build/packages/"
	@echo "make bench  - benchmarks: us vs PyTorch / oneDNN vs the copy-bandwidth probe; the SyncBN step at W = 1, 2; every HCCL collective at W = 1, 2, 4"
	@echo "make fuzz   - every libFuzzer target for FUZZ_SECONDS (default 60) each, ASan+UBSan"
	@echo "make mutation-check - apply small realistic bugs one at a time; every one must make a test fail"

deps:
	@$(STAGE) deps scripts/install-deps.sh

deps-minimal:
	@scripts/install-deps.sh --minimal

deps-package:
	@scripts/install-deps.sh --package

deps-fuzz:
	@$(STAGE) deps-fuzz scripts/install-deps.sh --with-fuzz

deps-pytorch:
	@scripts/install-deps.sh --pytorch

deps-bench:
	@scripts/install-deps.sh --bench

deps-aarch64:
	@$(STAGE) deps-aarch64 scripts/install-deps.sh --aarch64

# The main job: a light build (no tests, no oracle) of the library and its examples, then run
# them; then the PyTorch extension's demo.
demo: deps-minimal
	cmake --preset demo >/dev/null
	cmake --build --preset demo
	@for example in build/demo/examples/*/example_*; do \
	  [ -x "$$example" ] || continue; \
	  echo; echo "=== $$(basename $$example)"; "$$example"; \
	done
	@$(MAKE) --no-print-directory demo-pytorch

# A training step of a small 3-D U-Net block with stock PyTorch and with openaclnn.torch
# enabled (bench/pytorch/unet_step.py, a short run), from the installed package.
PYTORCH_PREFIX := build/pytorch/prefix
demo-pytorch: deps-pytorch
	cmake --preset pytorch >/dev/null
	cmake --build --preset pytorch
	rm -rf $(PYTORCH_PREFIX)
	cmake --install build/pytorch --prefix $(PYTORCH_PREFIX) --component runtime >/dev/null
	cmake --install build/pytorch --prefix $(PYTORCH_PREFIX) --component pytorch >/dev/null
	@echo; echo "=== PyTorch training step, stock vs openaclnn.torch enabled (bench/pytorch/unet_step.py)"
	PYTHONPATH=$(PYTORCH_PREFIX)/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/unet_step.py \
	  --steps 15 --warmup 2 --threads 2 --size 24 --no-profile

# Debian packages from the demo build (the library, its tool and examples; no tests):
# build/packages/openaclnn_<version>_<arch>.deb and openaclnn-dev_<version>_<arch>.deb.
package: deps-package
	cmake --preset demo >/dev/null
	cmake --build --preset demo
	cpack --config build/demo/CPackConfig.cmake -B build/packages
	@ls build/packages/*.deb

# CI runs this: every tier but `large` (the AArch64 tier included: cross-built, run under
# qemu-aarch64), plus a bounded fuzz run of every target, and prints each stage's wall time
# (docs/testing.md has the budget). The whole run sees no `shared/` folder beside the clone
# (scripts/without-shared.sh hides it), which proves on every CI run that the tree is
# self-contained.
test:
	@mkdir -p build && rm -f build/stage-times.tsv && date +%s >build/stage-start
	@scripts/without-shared.sh $(MAKE) --no-print-directory test-all || { scripts/stage-table.sh; exit 1; }
	@scripts/stage-table.sh

test-all: test-release test-asan test-tsan test-aarch64
	$(MAKE) fuzz FUZZ_SECONDS=$(CI_FUZZ_SECONDS)
	@scripts/test-summary.sh build/release/ctest.log build/asan/ctest.log build/tsan/ctest.log \
	  build/aarch64/ctest-neon.log build/aarch64/ctest-sve128.log build/aarch64/ctest-sve256.log build/aarch64/ctest-sve512.log

CI_FUZZ_SECONDS ?= 30

test-release: deps
	$(STAGE) release-configure cmake --preset release >/dev/null
	$(STAGE) release-build cmake --build --preset release
	$(STAGE) release-ctest bash -o pipefail -c 'ctest --test-dir build/release $(CTEST_FLAGS) -LE large | tee build/release/ctest.log'

test-asan: deps deps-fuzz
	$(STAGE) asan-configure cmake --preset asan >/dev/null
	$(STAGE) asan-build cmake --build --preset asan --target openaclnn_tests_unit openaclnn_tests_example
	$(STAGE) asan-ctest bash -o pipefail -c "ctest --test-dir build/asan $(CTEST_FLAGS) -L 'unit|example' | tee build/asan/ctest.log"

test-tsan: deps
	$(STAGE) tsan-configure cmake --preset tsan >/dev/null
	$(STAGE) tsan-build cmake --build --preset tsan --target openaclnn_tests_threads
	$(STAGE) tsan-ctest bash -o pipefail -c 'ctest --test-dir build/tsan $(CTEST_FLAGS) -L threads | tee build/tsan/ctest.log'

test-large: deps
	cmake --preset release >/dev/null
	cmake --build --preset release
	ctest --test-dir build/release $(CTEST_FLAGS) -L large

# AArch64: cross-built (preset aarch64), the unit and example tests run under qemu-aarch64
# on a NEON-only CPU model and on SVE/SVE2 at 128, 256 and 512 bits (scripts/test-aarch64.sh;
# each run prints its CTest summary and keeps it in build/aarch64/ctest-<run>.log).
test-aarch64: deps-aarch64
	scripts/test-aarch64.sh

# CSV per benchmark and the charts drawn from them (docs/bench/ holds a committed quiet run).
BENCH_OUT := build/bench
bench: deps-bench
	cmake --preset release >/dev/null
	cmake --build --preset release --target all openaclnn_benches
	@rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)/csv
	@# The batch-norm family benchmarks run 1 and all threads themselves; the upsample and
	@# normalization families once per count (their issues ask for 1 and 2 threads).
	@for benchmark in build/release/bench/*/openaclnn_bench_*; do \
	  [ -x "$$benchmark" ] || continue; \
	  name=$$(basename $$benchmark); \
	  case $$name in *upsample*|openaclnn_bench_norm) thread_runs="--threads=1 --threads=2";; *) thread_runs="-";; esac; \
	  for threads in $$thread_runs; do \
	    [ "$$threads" = "-" ] && threads=""; \
	    echo; echo "=== $$name $$threads"; \
	    OPENACLNN_BENCH_CSV=$(BENCH_OUT)/csv/$$name.csv "$$benchmark" $$threads $(BENCH_ARGS); \
	  done; \
	done
	@echo; echo "=== charts (ours vs PyTorch vs oneDNN vs roof, per case and thread count): $(BENCH_OUT)/charts"
	@/usr/bin/python3 scripts/bench-chart.py $(BENCH_OUT)/charts $(BENCH_OUT)/csv/*.csv
	@echo; echo "=== SyncBN step (examples/sync_batch_norm --time): global batch [16, 64, 28, 28] fp32 on W = 1 and 2 ranks vs the single-process operators"
	@for ranks in 1 2; do \
	  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np $$ranks \
	    build/release/examples/sync_batch_norm/example_sync_batch_norm --shape $$((16 / ranks)),64,28,28 --time 20 \
	    | grep '^timing'; \
	done
	@echo; echo "=== HCCL collectives (bench/hccl): median time per call at W = 1, 2, 4, the slowest rank's"
	@for ranks in 1 2 4; do \
	  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_mpi_yield_when_idle=1 \
	    mpirun --oversubscribe -np $$ranks build/release/bench/hccl/openaclnn_hccl_timing \
	    --csv $(BENCH_OUT)/csv/hccl_timing_w$$ranks.csv; \
	done
	@echo; echo "=== PyTorch extension (bench/pytorch): a U-Net training step and per-call cost, stock vs openaclnn.torch"
	@cmake -DBUILD_DIR=build/release -DPREFIX=build/release/pytorch-prefix -P tests/pytorch/install_prefix.cmake >/dev/null
	PYTHONPATH=build/release/pytorch-prefix/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/unet_step.py
	PYTHONPATH=build/release/pytorch-prefix/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/unet_step.py --block norms
	PYTHONPATH=build/release/pytorch-prefix/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/block_calls.py
	PYTHONPATH=build/release/pytorch-prefix/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/block_calls.py --block bn
	PYTHONPATH=build/release/pytorch-prefix/lib/python3/dist-packages /usr/bin/python3 bench/pytorch/per_call.py

# Each fuzzer first replays the inputs of past findings (fuzz/regressions/<name>/) on every
# SIMD target, then fuzzes for FUZZ_SECONDS from its committed seed corpus
# (fuzz/corpus/<name>/), each input on the target its last byte picks; new inputs go to a
# scratch folder, findings to build/fuzz/. Any finding fails the target. The fuzzers run
# side by side, one per CPU (scripts/fuzz-run.sh). They are built in the sanitizer tree
# (build/asan, clang), so one ASan+UBSan build of the library serves them and the unit tests.
FUZZ_SECONDS ?= 60
fuzz: deps-fuzz
	$(STAGE) fuzz-configure cmake --preset asan >/dev/null
	$(STAGE) fuzz-build cmake --build --preset asan --target openaclnn_fuzzers
	@$(STAGE) fuzz-run $(MAKE) --no-print-directory fuzz-run

fuzz-run:
	@scripts/fuzz-run.sh $(FUZZ_SECONDS)

# On demand, not in CI: rebuilds the kernels once per mutation (see docs/testing.md).
mutation-check: deps
	scripts/mutation-check.py $(MUTATION_ARGS)

clean:
	rm -rf build
