# The lab tests: every tests/lab/*.sh but lib.sh (which they source) is a
# TAP script that boots the lab under QEMU.
TEST_BINS += $(filter-out tests/lab/lib.sh,$(wildcard tests/lab/*.sh))
