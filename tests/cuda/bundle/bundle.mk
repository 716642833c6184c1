# The GPU bundle's Makefile (written by make gpu-bundle; see README in
# docs/gpu-bundle.md of kpy).  Needs nvcc, the CUDA driver and a GPU.
#   make -j16 all          compile bin/M for every module M (kcuda's kernels
#                          and the driver-API launcher of ptx/M.ptx)
#   make -j16 -k run OUT=DIR   run every kernel, both paths: DIR/table.txt
# run.sh does both.
include kernels.mk
NVCC ?= nvcc
ARCH ?= sm_90
# no contraction: krun's CPU build uses -ffp-contract=off (docs/gpu-bundle.md)
NVCCFLAGS ?= -O3 -std=c++17 -arch=$(ARCH) -fmad=false
CUDALIB ?= -lcuda
OUT ?= out
RTOL ?= 1e-4
ATOL ?= 1e-5
SEED ?= 1
TIME ?= 0
export OUT RTOL ATOL SEED TIME

all: $(MODS:%=bin/%)

run: $(RUNS)

bin/%: src/%.cu
	@mkdir -p bin "$(OUT)/build"
	@if $(NVCC) $(NVCCFLAGS) -DKPY_SA_PTX -Iinclude -o $@ $< $(CUDALIB) >"$(OUT)/build/$*.log" 2>&1; \
	then [ -s "$(OUT)/build/$*.log" ] || rm -f "$(OUT)/build/$*.log"; \
	else echo "nvcc failed: $* ($(OUT)/build/$*.log)"; rm -f $@; fi

clean:
	rm -rf bin

.PHONY: all run clean $(RUNS)
