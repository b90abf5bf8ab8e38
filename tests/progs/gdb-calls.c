// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: nested calls with one statement a line, for reverse-next,
 * reverse-finish and record goto.  Exits 18 (6 + 12).
 */
static volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	sink = x;
	return x * 2;
}

__attribute__((noinline)) int middle(int x)
{
	int a = leaf(x);
	int b = leaf(a);

	return a + b;
}

int main(void)
{
	int r = middle(1);

	r += middle(2);
	return r;
}
