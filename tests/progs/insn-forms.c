// SPDX-License-Identifier: GPL-2.0-or-later
/* insn-forms: runs forms (insn-forms-asm.S) once with n = 1. */
void forms(unsigned char *buf, int n);

int main(void)
{
	unsigned char buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	forms(buf, 1);
	return 0;
}
