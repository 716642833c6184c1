# The Makefile of a bundle written by keval --bundle (keval(1)): every
# candidate compiled with nvcc (cuda) or checked with ptxas (ptx) and run
# on keval's inputs; the outputs go to $(OUT)/NAME/.  run.sh drives it.
# The expected outputs are not here: keval --score compares on its side.
include cands.mk
NVCC ?= nvcc
PTXAS ?= ptxas
ARCH ?= sm_90
# no contraction, as the bundle of make gpu-bundle (docs/gpu-bundle.md)
NVCCFLAGS ?= -O3 -std=c++17 -arch=$(ARCH) -fmad=false
CUDALIB ?= -lcuda
OUT ?= results
TIMEOUT ?= 60
export NVCC PTXAS ARCH NVCCFLAGS OUT TIMEOUT

all: $(CANDS:%=run-%)

# compile only (no GPU needed): $(OUT)/NAME/build.rc says how it went
build: $(CANDS:%=$(OUT)/%/build.rc)

# host/H.cu: the host program of one record's kernel, its kernels only
# declared (-c: linked with a cuda candidate) or empty (-DKPY_SA_PTX: the
# driver-API launcher of a ptx candidate)
bin/%.ptxhost: host/%.cu
	@mkdir -p bin "$(OUT)/build"
	@$(NVCC) $(NVCCFLAGS) -DKPY_SA_PTX -Iinclude -o $@ $< $(CUDALIB) >"$(OUT)/build/$*.ptxhost.log" 2>&1 || \
	{ echo "nvcc failed: host/$*.cu ($(OUT)/build/$*.ptxhost.log)"; rm -f $@; }
obj/%.host.o: host/%.cu
	@mkdir -p obj "$(OUT)/build"
	@$(NVCC) $(NVCCFLAGS) -Iinclude -c -o $@ $< >"$(OUT)/build/$*.host.log" 2>&1 || \
	{ echo "nvcc failed: host/$*.cu ($(OUT)/build/$*.host.log)"; rm -f $@; }

clean:
	rm -rf bin obj

.PHONY: all build clean $(CANDS:%=run-%)
