/* SPDX-License-Identifier: MIT */
#include "stop_signals.h"

#include <stddef.h>

const int stop_signals[STOP_SIGNALS_N] = { SIGINT, SIGTERM, SIGHUP };

void catch_stop_signals(void (*handler)(int), struct sigaction old[STOP_SIGNALS_N])
{
	struct sigaction sa = { .sa_handler = handler }, was;

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < STOP_SIGNALS_N; i++) {
		if (sigaction(stop_signals[i], NULL, &was) != 0)
			continue;
		if (old)
			old[i] = was;
		if (was.sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

void restore_stop_signals(const struct sigaction old[STOP_SIGNALS_N])
{
	for (int i = 0; i < STOP_SIGNALS_N; i++)
		sigaction(stop_signals[i], &old[i], NULL);
}
