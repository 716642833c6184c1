# samples/dataset.mk — the dataset build: one makefile for the build tree
# (`make dataset`), an installed kpy (`kpy-dataset`) and Slurm's array tasks.
#
#   make -f dataset.mk KPY_BIN=DIR KPY_INCLUDE=DIR KPY_SHARD=shard.sh \
#        [OUT=dataset] [N=2000] [SEED=1] [SHARD=N/8, 10..100] [CATEGORIES=a,b]
#        [SOURCE=FOLDER] [-jN] [TARGET]
#
# Targets: all (the default: every shard, then the merge), shards (every
# shard, no merge), merge (merge the shards that exist; refuses an incomplete
# set), OUT/shards/NNNNN.jsonl (one shard), missing (print the indices of
# the shards that are not built, or whose parameters changed).
#
# Shards are independent targets, so -j builds them in parallel and an
# interrupted build resumes; each is written atomically by shard.sh, then
# kpack merges them in shard order: the same parameters give the same bytes
# at any -j, locally or on Slurm.
#
# A shard's bytes depend on its parameters and on the tools: each shard has
# a parameter file, rewritten only when its content changes, and the shard
# depends on it and on the tools themselves (and, with SOURCE, on the
# modules).  Changing SEED, SHARD, CATEGORIES, SOURCE, NVCC or PTXAS rebuilds
# every shard; changing N rebuilds only the
# shards whose range changes (the last one) and adds or drops shards.

N ?= 2000
SEED ?= 1
# kernels per shard: N/8 between 10 and 100, so that a small build is still
# several shards (progress, parallelism) and a large one amortizes each
# shard's compiler runs; the records do not depend on it
SHARD ?= $(shell s=$$(( ($(N) + 7) / 8 )); [ $$s -lt 10 ] && s=10; [ $$s -gt 100 ] && s=100; echo $$s)
CATEGORIES ?=
# SOURCE=FOLDER: the records come from the Warp modules FOLDER/*.py (each
# kernel in them; kshard --split), not from kgen; N is then their number
SOURCE ?=
ifneq ($(SOURCE),)
dataset_sources := $(sort $(wildcard $(SOURCE)/*.py))
override N := $(words $(dataset_sources))
endif
# a folder of Python (Warp's tests and examples) the card's decontamination
# report compares the records with; empty: not run
WARP_SRC ?=
OUT ?= dataset
NVCC ?= $(shell command -v nvcc 2>/dev/null)
PTXAS ?= $(shell command -v ptxas 2>/dev/null)
KPY_BIN ?= $(error KPY_BIN (the folder of kgen, kpyc, ... kpack) is not set)
KPY_INCLUDE ?= $(error KPY_INCLUDE (the runtime headers' folder) is not set)
KPY_SHARD ?= $(error KPY_SHARD (shard.sh) is not set)

SHELL = /bin/sh
dataset_nshards := $(shell echo $$(( ($(N) + $(SHARD) - 1) / $(SHARD) )))
dataset_shards := $(shell i=0; while [ $$i -lt $(dataset_nshards) ]; do \
	printf '$(OUT)/shards/%05d.jsonl ' $$i; i=$$((i+1)); done)
dataset_tools = $(addprefix $(KPY_BIN)/,kgen kshard krun kpack)

all: $(dataset_shards)
	@$(MAKE) -s -f '$(firstword $(MAKEFILE_LIST))' merge
.PHONY: all shards merge missing FORCE
shards: $(dataset_shards)

# the merge reads only what exists: it never builds a shard
merge:
	@for s in $(dataset_shards); do \
		[ -f "$$s" ] && [ -f "$${s%.jsonl}.rejects.jsonl" ] || { \
		echo "dataset: $$s is missing: the set of $(dataset_nshards) shards is incomplete, not merged" >&2; exit 1; }; \
	done; \
	rejects=$$(for s in $(dataset_shards); do printf -- '--rejects %s ' $${s%.jsonl}.rejects.jsonl; done); \
	'$(KPY_BIN)/kpack' merge -o '$(OUT)' --include '$(KPY_INCLUDE)' $(if $(WARP_SRC),--decontaminate '$(WARP_SRC)') \
	    $$rejects $(dataset_shards) && \
	'$(KPY_BIN)/kpack' validate $$(for f in train val test; do [ -f '$(OUT)'/$$f.jsonl ] && echo '$(OUT)'/$$f.jsonl; done) && \
	echo "dataset: $(OUT) (README.md describes it; stats.json has the counts)"

# the shards not built, or built with other parameters (Slurm resubmission)
missing:
	@i=0; while [ $$i -lt $(dataset_nshards) ]; do \
		s=$$(printf '%05d' $$i); start=$$((i * $(SHARD))); count=$(SHARD); \
		if [ $$((start + count)) -gt $(N) ]; then count=$$(( $(N) - start )); fi; \
		$(dataset_params) | cmp -s - '$(OUT)'/shards/$$s.params && \
		[ -f '$(OUT)'/shards/$$s.jsonl ] && [ -f '$(OUT)'/shards/$$s.rejects.jsonl ] || echo $$i; \
		i=$$((i+1)); done

dataset_range = start=$$(( $$(expr $* + 0) * $(SHARD) )); count=$(SHARD); \
	if [ $$((start + count)) -gt $(N) ]; then count=$$(( $(N) - start )); fi
dataset_params = printf 'seed %s\nshard %s\nstart %s\ncount %s\ncategories %s\nsource %s\nnvcc %s\nptxas %s\n' \
	'$(SEED)' '$(SHARD)' "$$start" "$$count" '$(CATEGORIES)' '$(SOURCE)' '$(NVCC)' '$(PTXAS)'

$(OUT)/shards/%.params: FORCE
	@mkdir -p '$(@D)'; $(dataset_range); $(dataset_params) >'$@.new'; \
	if cmp -s '$@.new' '$@'; then rm -f '$@.new'; else mv -f '$@.new' '$@'; fi
.PRECIOUS: $(OUT)/shards/%.params
FORCE:

$(OUT)/shards/%.jsonl: $(OUT)/shards/%.params $(dataset_tools) $(KPY_SHARD) $(dataset_sources)
	@$(dataset_range); \
	SOURCE='$(SOURCE)' NVCC='$(NVCC)' PTXAS='$(PTXAS)' KPY_INCLUDE='$(KPY_INCLUDE)' KPY_SHARDS=$(dataset_nshards) \
	bash '$(KPY_SHARD)' '$(KPY_BIN)' '$(OUT)' '$*' $(SEED) $$start $$count '$(CATEGORIES)'
