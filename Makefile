# The two commands of the README, plus the benchmark, the large tier and the presets.
# Each target installs missing Debian packages first (as root; otherwise it says what to run).
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
CTEST_FLAGS := --output-on-failure --no-tests=error

.PHONY: help deps deps-minimal demo test test-release test-asan test-tsan test-large bench clean

help:
	@echo "make demo   - build and run the example programs (prints what they compute)"
	@echo "make test   - build and run the whole test suite: release (with the PyTorch oracle),"
	@echo "              AddressSanitizer+UBSan unit tests, ThreadSanitizer stream tests"
	@echo "make test-large - the slow tier (large problems)"
	@echo "make bench  - benchmarks: us vs PyTorch / oneDNN vs the copy-bandwidth probe"

deps:
	@scripts/install-deps.sh

deps-minimal:
	@scripts/install-deps.sh --minimal

# The main job: a light build (no tests, no oracle) of the library and its examples, then run them.
demo: deps-minimal
	cmake --preset demo >/dev/null
	cmake --build --preset demo
	@for example in build/demo/examples/*/example_*; do \
	  [ -x "$$example" ] || continue; \
	  echo; echo "=== $$(basename $$example)"; "$$example"; \
	done

test: test-release test-asan test-tsan

test-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release
	ctest --test-dir build/release $(CTEST_FLAGS) -LE large

test-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan
	ctest --test-dir build/asan $(CTEST_FLAGS) -L 'unit|example'

test-tsan: deps
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan
	ctest --test-dir build/tsan $(CTEST_FLAGS) -L threads

test-large: deps
	cmake --preset release >/dev/null
	cmake --build --preset release
	ctest --test-dir build/release $(CTEST_FLAGS) -L large

bench: deps
	cmake --preset release >/dev/null
	cmake --build --preset release
	@for benchmark in build/release/bench/*/openaclnn_bench_*; do \
	  [ -x "$$benchmark" ] || continue; \
	  echo; echo "=== $$(basename $$benchmark)"; "$$benchmark" $(BENCH_ARGS); \
	done

clean:
	rm -rf build
