// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb tests: the exact sequence of gdb-seq-asm.S, run once, and an exit
 * code of 3 (seq_leaf adds one three times) that gdb must report.
 */
int seq_run(void);

int main(void)
{
	return seq_run();
}
