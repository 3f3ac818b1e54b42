// SPDX-License-Identifier: GPL-2.0-or-later
/* An ordinary program that knows nothing of ktau (LD_PRELOAD test). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	nanosleep(&pause, NULL);
	puts("plain done");
	return 0;
}
