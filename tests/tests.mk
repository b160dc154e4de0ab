# Tests: included by the Makefile. The contract:
#  - every tests/unit/test_*.c becomes $(BUILD)/tests/test_*, linked with
#    $(BUILD)/libfpu.a -lcmocka;
#  - every test executable is listed in TEST_BINS (fuzz.mk and lab.mk append);
#  - `make test` checks the dependencies, builds everything, then runs
#    tests/run-tests.sh $(TEST_BINS), whose last line is "N passed, N failed, N skipped".

UNIT_TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_TEST_SRCS))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -o $@ $< $(BUILD)/libfpu.a -lcmocka $(HLDLIBS)

# libfpu with FPU_TESTING (fault injection) for the unit tests that show a
# fault is caught: test_guarantees.
HOSTLIB_TEST_OBJS := $(patsubst %,$(BUILD)/host-test/%.o,$(LIB_SRCS))
$(BUILD)/host-test/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -DFPU_TESTING -MMD -c $< -o $@
$(HOSTLIB_TEST_OBJS): HCFLAGS += -mgeneral-regs-only
$(BUILD)/libfpu-test.a: $(HOSTLIB_TEST_OBJS)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/tests/test_guarantees: tests/unit/test_guarantees.c $(BUILD)/libfpu-test.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -MMD -o $@ $< $(BUILD)/libfpu-test.a -lcmocka $(HLDLIBS)

# The fpulab command: unit tests of its parts (cmocka), and `fpulab run`
# against a fake QEMU (TAP shell script; uses $(BUILD)/fpulab).
CLI_UNIT_OBJS := $(filter-out $(BUILD)/host/cli/main.c.o,$(CLI_OBJS))
$(BUILD)/tests/test_cli_%: tests/cli/test_cli_%.c $(CLI_UNIT_OBJS) $(BUILD)/libfpu.a
	@mkdir -p $(dir $@)
	$(CC) $(HCFLAGS) -Icli -MMD -o $@ $< $(CLI_UNIT_OBJS) $(BUILD)/libfpu.a -lcmocka $(HLDLIBS) \
		$(REPLAY_LDFLAGS)
TEST_BINS += $(patsubst tests/cli/%.c,$(BUILD)/tests/%,$(wildcard tests/cli/test_cli_*.c))
TEST_BINS += tests/cli/test_run.sh tests/cli/test_cli_cmds.sh tests/cli/test_run_lab.sh
TEST_BINS += tests/cli/test_cli_compare.sh
TEST_BINS += tests/cli/test_cli_report.sh
TEST_BINS += tests/cli/test_cli_plot.sh
TEST_BINS += tests/cli/test_cli_summary.sh
TEST_BINS += tests/cli/test_run_interrupt.sh
TEST_BINS += tests/cli/test_run_progress.sh
TEST_BINS += tests/cli/test_run_integrity.sh
TEST_BINS += tests/cli/test_trace_cmds.sh tests/cli/test_host.sh tests/cli/test_host_costs.sh
TEST_BINS += tests/cli/test_trace_import.sh
TEST_BINS += tests/cli/test_limits.sh tests/cli/test_replay_bench.sh tests/cli/test_scale_bench.sh
TEST_BINS += tests/cli/test_replay_output.sh tests/cli/test_plot_cmds.sh tests/cli/test_replay_costs.sh

-include tests/fuzz/fuzz.mk
-include tests/lab/lab.mk

# This host's costs, measured once per `make test`: the replays of the tests
# read them ($FPULAB_HOST_COSTS, docs/model.md) instead of measuring them
# each time (0.6 s a replay); tests/cli/test_replay_costs.sh measures too.
HOST_COSTS_CACHE := $(abspath $(BUILD))/tests/host-costs.json

.PHONY: test-bins
test-bins: all $(TEST_BINS)

test:
	./tools/ensure-deps test
	$(MAKE) --no-print-directory test-bins
	$(BUILD)/fpulab host costs --repeat 3 --format json --output $(HOST_COSTS_CACHE) 2> /dev/null
	FPULAB=$(BUILD)/fpulab FPULAB_HOST_COSTS=$(HOST_COSTS_CACHE) \
		tests/run-tests.sh $(if $(SUITE),$(SUITE_BINS),$(TEST_BINS))

# make test SUITE=NAME: only the test executables whose name is NAME
# (test_cli_compare, test_run.sh, stress, ...); none matching is an error.
SUITE_BINS = $(foreach t,$(TEST_BINS),$(if $(filter $(SUITE) $(SUITE).sh,$(notdir $(t))),$(t)))
