# fpulab: libfpu (lib/), the lab kernel (lab/), the host command (cli/).
#
#   make            build everything
#   make run        build, run the default matrix (fpulab run), print the summary
#   make test       build, then run every test; ends with "N passed, N failed, N skipped"
#   make image      the bootable image, build/fpulab.iso (docs/bare-metal.md)
#   make test-image boot it under QEMU: BIOS and UEFI (slow; .ci/run runs it)
#   make help       every target and the variables they take

# gcc unless the user chose a compiler (make's own default CC is cc).
ifeq ($(origin CC),default)
CC      := gcc
endif
BUILD   ?= build

WARN     := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
# make WERROR=1: every warning is an error (CI builds so, with gcc and clang).
ifeq ($(WERROR),1)
WARN     += -Werror
endif
INCLUDES := -Iinclude

# Freestanding code (lab/, and lib/ as the lab embeds it): no libc headers,
# no red zone, no SSE/x87 in compiler-generated code.
KCFLAGS  := -std=gnu11 -O2 -g $(WARN) $(INCLUDES) -ffreestanding -nostdinc \
            -isystem $(shell $(CC) -print-file-name=include) \
            -fno-stack-protector -fno-pic -fno-pie -fno-omit-frame-pointer \
            -fno-asynchronous-unwind-tables -mno-red-zone -mgeneral-regs-only \
            -mcmodel=small -fcf-protection=none
KLDFLAGS := -nostdlib -static -Wl,--build-id=none -Wl,-z,max-page-size=0x1000 \
            -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments

# Host code (cli/, tests, lib/ as the host links it).
HCFLAGS  := -std=gnu11 -O2 -g $(WARN) $(INCLUDES) -D_GNU_SOURCE
# make SANITIZE=undefined (or address, ...): the host code and its tests built
# with that sanitizer, stopping at the first report (make test-ubsan).
ifneq ($(SANITIZE),)
HCFLAGS  += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif
HLDLIBS  := -ljansson -lm

LIB_SRCS := $(wildcard lib/*.c)
LAB_SRCS := $(wildcard lab/*.c lab/*.S lab/user/*.c)
CLI_SRCS := $(wildcard cli/*.c cli/*/*.c cli/*/*.S)

LAB_OBJS      := $(patsubst %,$(BUILD)/lab/%.o,$(LAB_SRCS) $(LIB_SRCS))
LABTEST_OBJS  := $(patsubst %,$(BUILD)/lab-test/%.o,$(LAB_SRCS) $(LIB_SRCS))
HOSTLIB_OBJS  := $(patsubst %,$(BUILD)/host/%.o,$(LIB_SRCS))
CLI_OBJS      := $(patsubst %,$(BUILD)/host/%.o,$(CLI_SRCS))

.PHONY: all run test clean help
all: $(BUILD)/lab.elf $(BUILD)/lab-test.elf $(BUILD)/fpulab ## build the lab kernels (lab.elf, lab-test.elf) and fpulab

# ---- lab kernel ----
$(BUILD)/lab/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -MMD -c $< -o $@
$(BUILD)/lab/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -MMD -c $< -o $@
$(BUILD)/lab.elf: $(LAB_OBJS) lab/lab.ld
	$(CC) $(KLDFLAGS) -T lab/lab.ld -o $@ $(LAB_OBJS)

# The same kernel with test-only policies and fault injection compiled in.
$(BUILD)/lab-test/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -DFPU_TESTING -MMD -c $< -o $@
$(BUILD)/lab-test/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -DFPU_TESTING -MMD -c $< -o $@
$(BUILD)/lab-test.elf: $(LABTEST_OBJS) lab/lab.ld
	$(CC) $(KLDFLAGS) -T lab/lab.ld -o $@ $(LABTEST_OBJS)

# ---- host side ----
$(BUILD)/host/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -c $< -o $@
$(BUILD)/host/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -c $< -o $@
$(BUILD)/libfpu.a: $(HOSTLIB_OBJS)
	rm -f $@ && ar rcs $@ $^
# version.c carries `git describe`; the stamp changes only when the description does.
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/git-describe: FORCE
	@mkdir -p $(dir $@)
	@echo '$(GIT_DESCRIBE)' | cmp -s - $@ || echo '$(GIT_DESCRIBE)' > $@
$(BUILD)/host/cli/common/version.c.o: $(BUILD)/git-describe
$(BUILD)/host/cli/common/version.c.o: HCFLAGS += -DFPULAB_GIT_DESCRIBE='"$(GIT_DESCRIBE)"'
.PHONY: FORCE
FORCE:

# cli/ includes across its folders by path from cli/ ("common/util.h").
$(CLI_OBJS): HCFLAGS += -Icli

# libfpu as the host links it: no SSE in its own code either, as in the lab
# (the replay engine calls it between the simulated tasks' uses of the
# vector registers).
$(HOSTLIB_OBJS): HCFLAGS += -mgeneral-regs-only

# The replay engine runs between the simulated tasks' uses of the vector
# registers: the compiler must leave them alone (cli/replay/replay_engine.c).
# The floor's log is written inside libfpu's calls and read between those uses too.
$(BUILD)/host/cli/replay/replay_engine.c.o $(BUILD)/host/cli/replay/replay_log.c.o: \
	HCFLAGS += -mgeneral-regs-only
# ... and reads a trace's events from its file between them (trace_iter_next).
$(BUILD)/host/cli/trace/trace_iter.c.o: HCFLAGS += -mgeneral-regs-only

$(BUILD)/fpulab: $(CLI_OBJS) $(BUILD)/libfpu.a
	$(CC) $(HCFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libfpu.a $(HLDLIBS)

# Dependencies first: on a fresh machine they are what the build needs.
# The results and plots stay in $(BUILD)/results; the summary is what to read first.
run: ## build, run the default experiments and replays, print the summary (results in BUILD/results)
	./tools/ensure-deps run
	$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/results
	./$(BUILD)/fpulab run --format json --output $(BUILD)/results/run.json
	@for e in fp-vs-spinner short-tasks kernel-checksum; do \
		echo "./$(BUILD)/fpulab run --experiment $$e --format json --output $(BUILD)/results/$$e.json"; \
		./$(BUILD)/fpulab run --experiment $$e --format json --output $(BUILD)/results/$$e.json || exit 1; \
	done
	@echo "./tools/replay-bench -o $(BUILD)/results/traces --repeat 5 --format json --output $(BUILD)/results/replay.json"
	@FPULAB=./$(BUILD)/fpulab ./tools/replay-bench -o $(BUILD)/results/traces --repeat 5 \
		--format json --output $(BUILD)/results/replay.json
	@echo "./tools/linux-sample -o $(BUILD)/results --seconds 3"
	@FPULAB=./$(BUILD)/fpulab ./tools/linux-sample -o $(BUILD)/results --seconds 3
	@./$(BUILD)/fpulab summary --plot $(BUILD)/results/plots $(BUILD)/results/run.json \
		$(BUILD)/results/fp-vs-spinner.json $(BUILD)/results/short-tasks.json \
		$(BUILD)/results/kernel-checksum.json $(BUILD)/results/replay.json \
		$$(test -f $(BUILD)/results/linux.json && echo $(BUILD)/results/linux.json)

# The bootable image (docs/bare-metal.md): BIOS and UEFI, CD or USB stick (dd).
.PHONY: image
image: ## the bootable image, BUILD/fpulab.iso: BIOS and UEFI, CD or USB stick
	./tools/ensure-deps image
	$(MAKE) --no-print-directory all
	./tools/mkimage -o $(BUILD)/fpulab.iso --kernel $(BUILD)/lab.elf

clean: ## remove BUILD (default build/)
	rm -rf $(BUILD)

# Every target with a "## what it does" comment, then the variables.
help: ## this list
	@echo "make TARGET [VARIABLE=value ...]; targets:"
	@awk -F':.*## ' '/^[a-z][a-z-]*:.*## / { printf "  %-12s %s\n", $$1, $$2 }' \
		$(filter-out %.d,$(MAKEFILE_LIST))
	@echo "variables:"
	@echo "  CC=clang      build with clang (default gcc); make check-clang does it in $(BUILD)/clang"
	@echo "  BUILD=DIR     where every output goes (default build)"
	@echo "  WERROR=1      warnings are errors (CI)"
	@echo "  SANITIZE=X    host code and tests with -fsanitize=X (test-ubsan: undefined)"
	@echo "  SUITE=NAME    make test: only the test executables called NAME (test_cli_replay, stress, ...)"
	@echo "  FUZZ_SECONDS=N  make fuzz: how long (default 60)"

# Both compilers build the tree with no warnings: clang, warnings as errors,
# in a build folder of its own (CI runs it; gcc is checked by make WERROR=1 test).
.PHONY: check-clang
check-clang: ## build everything and every test with clang, warnings as errors (in BUILD/clang)
	$(MAKE) --no-print-directory CC=clang WERROR=1 BUILD=$(BUILD)/clang all test-bins

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
-include tests/tests.mk

# ---- lint: formatting (.clang-format), cppcheck, shellcheck and the layout
# rules (tools/check-arch: function length, include direction, the file map
# of docs/architecture.md); CI runs it ----
LINT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null | grep -E '^(lib|lab|cli|include|tests)/')
# The project's shell scripts: *.sh, and every tracked file whose first line
# is a sh or bash #! line (tools/, .ci/run, tests/cli/fake-qemu, ...).
SHELL_SCRIPTS = $(shell git ls-files -z 2>/dev/null | xargs -0 awk 'FNR == 1 { \
		if (FILENAME ~ /\.sh$$/ || /^\#!.*(\/|env )(ba|da)?sh([ \t]|$$)/) print FILENAME; nextfile }')
# unusedStructMember: hardware and ABI layouts (FNSTENV, hvm_start_info, XSAVE
# headers) name fields that the code never reads; they document the layout.
CPPCHECK_FLAGS := --quiet --error-exitcode=1 --std=c11 --inline-suppr \
                  --enable=warning,style,performance,portability -Iinclude \
                  --suppress=unusedStructMember
.PHONY: lint
lint: check-tests ## clang-format, cppcheck, shellcheck, function length, include direction, the file map, every test run
	@echo "clang-format --dry-run --Werror (lib lab cli include tests)"
	@clang-format --dry-run --Werror $(LINT_SRCS)
	cppcheck $(CPPCHECK_FLAGS) lib lab cli
	@echo "shellcheck -x ($(words $(SHELL_SCRIPTS)) scripts)"
	@shellcheck -x $(SHELL_SCRIPTS)
	./tools/check-arch
