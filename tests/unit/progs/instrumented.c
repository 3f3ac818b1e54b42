// SPDX-License-Identifier: GPL-2.0-or-later
/* Compiled with -finstrument-functions and linked with libktau.so: every
 * function below becomes a timer, the static one included. */
static volatile int sink;

static void leaf(int i)
{
	sink += i;
}

void work(void);
void work(void)
{
	for (int i = 0; i < 10; i++)
		leaf(i);
}

int recurse(int n);
int recurse(int n)
{
	return n > 1 ? recurse(n - 1) + 1 : 1;
}

int main(void)
{
	work();
	for (int i = 0; i < 3; i++)
		sink += recurse(3);
	return 0;
}
