# Makefile - the front door: `make demo` and `make test` on a fresh Debian
# machine.  Each goal first installs the Debian packages the build needs (when
# one is missing), then drives CMake; the real build lives in CMakeLists.txt.

DEBS := cmake gcc make pkg-config libzstd-dev liblz4-dev libssl-dev \
	libsqlite3-dev libcjson-dev libinih-dev libcmocka-dev clang libclang-rt-dev
BUILD := build
ASAN := build-asan
JOBS := $(shell nproc)
FUZZ_SECONDS ?= 20
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# nvcc is found on PATH or in the toolkit's usual place.
export PATH := $(PATH):/usr/local/cuda/bin

.PHONY: all deps build demo test test-release test-asan test-fuzz bench clean

all: build

deps:
	@missing=; for p in $(DEBS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v nvcc >/dev/null || { \
		echo "warning: nvcc not found on PATH or in /usr/local/cuda/bin:"; \
		echo "warning: install the CUDA toolkit 13 to build CUDA programs (demo, tests/cuda)"; }

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	@command -v nvcc >/dev/null || { echo "error: make demo needs nvcc (CUDA toolkit 13)"; exit 1; }
	bash examples/run-demo.sh $(BUILD)

# All tests in the release tree, the unit tests again under ASan+UBSan,
# then a short fuzz run.  -k: one failing stage does not hide the others.
test: build
	@$(MAKE) --no-print-directory -k test-release test-asan test-fuzz

# Tests labelled pending document what the engine does not do yet: run
# them with `cd build && ctest -L pending`.
test-release: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -LE pending

test-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DANYGPU_SANITIZE=ON -DAG_CUDA_TESTS=OFF
	cmake --build $(ASAN) -j$(JOBS)
	cd $(ASAN) && ctest --output-on-failure -j$(JOBS) -L unit

test-fuzz: deps
	@if [ -f tests/fuzz/run.sh ]; then sh tests/fuzz/run.sh $(FUZZ_SECONDS); \
	else echo "tests/fuzz/run.sh not present: no fuzzing"; fi

bench: build
	@if [ -f bench/run.sh ]; then bash bench/run.sh; \
	else echo "bench/run.sh not present yet"; exit 1; fi

clean:
	rm -rf $(BUILD) $(ASAN) build-fuzz build-fuzz.log
