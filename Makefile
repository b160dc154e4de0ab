# fpulab: libfpu (lib/), the lab kernel (lab/), the host command (cli/).
#
#   make            build everything
#   make run        build, run the default matrix (fpulab run), print the summary
#   make test       build, then run every test; ends with "N passed, N failed, N skipped"

# gcc unless the user chose a compiler (make's own default CC is cc).
ifeq ($(origin CC),default)
CC      := gcc
endif
BUILD   ?= build

WARN     := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
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
HLDLIBS  := -ljansson -lm

LIB_SRCS := $(wildcard lib/*.c)
LAB_SRCS := $(wildcard lab/*.c lab/*.S lab/user/*.c)
CLI_SRCS := $(wildcard cli/*.c cli/*/*.c cli/*/*.S)

LAB_OBJS      := $(patsubst %,$(BUILD)/lab/%.o,$(LAB_SRCS) $(LIB_SRCS))
LABTEST_OBJS  := $(patsubst %,$(BUILD)/lab-test/%.o,$(LAB_SRCS) $(LIB_SRCS))
HOSTLIB_OBJS  := $(patsubst %,$(BUILD)/host/%.o,$(LIB_SRCS))
CLI_OBJS      := $(patsubst %,$(BUILD)/host/%.o,$(CLI_SRCS))

.PHONY: all run test clean
all: $(BUILD)/lab.elf $(BUILD)/lab-test.elf $(BUILD)/fpulab

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

# replay's floor logs libfpu's saves and restores through these (cli/replay/replay_engine.c).
REPLAY_LDFLAGS := -Wl,--wrap=xstate_save -Wl,--wrap=xstate_restore

$(BUILD)/fpulab: $(CLI_OBJS) $(BUILD)/libfpu.a
	$(CC) $(HCFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libfpu.a $(HLDLIBS) $(REPLAY_LDFLAGS)

# Dependencies first: on a fresh machine they are what the build needs.
# The results and plots stay in $(BUILD)/results; the summary is what to read first.
run:
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
	@./$(BUILD)/fpulab summary --plot $(BUILD)/results/plots $(BUILD)/results/run.json \
		$(BUILD)/results/fp-vs-spinner.json $(BUILD)/results/short-tasks.json \
		$(BUILD)/results/kernel-checksum.json $(BUILD)/results/replay.json

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
-include tests/tests.mk

# ---- lint: formatting (.clang-format) and cppcheck; CI runs it ----
LINT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null | grep -E '^(lib|lab|cli|include|tests)/')
# unusedStructMember: hardware and ABI layouts (FNSTENV, hvm_start_info, XSAVE
# headers) name fields that the code never reads; they document the layout.
CPPCHECK_FLAGS := --quiet --error-exitcode=1 --std=c11 --inline-suppr \
                  --enable=warning,style,performance,portability -Iinclude \
                  --suppress=unusedStructMember
.PHONY: lint
lint:
	@echo "clang-format --dry-run --Werror (lib lab cli include tests)"
	@clang-format --dry-run --Werror $(LINT_SRCS)
	cppcheck $(CPPCHECK_FLAGS) lib lab cli
