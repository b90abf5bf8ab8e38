// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oracle-libc: a dynamically linked program that does real work in its own
 * functions (a qsort with its own comparison, string processing, recursion,
 * switch statements) and calls libc throughout.  The oracle test compares
 * the branches inside these functions as btrace and qemu-user see them.
 *
 * Its control flow must not depend on anything that differs between a run
 * under btrace and one under qemu: no addresses, times, pids or
 * environment; only the fixed data below.  Its first line is
 * "oracle-libc main 0xADDR", the run-time address of main(), from which the
 * test learns where the program was loaded.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVALS 160	/* 640 bytes: glibc's qsort sorts them on the stack */
/* Calls and returns between the program's functions are compared too. */
#define OWN __attribute__((noinline))

static unsigned int seed = 2024;

static unsigned int next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) & 0x7fff;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (x < y)
		return -1;
	if (x > y)
		return 1;
	return 0;
}

/* Longer names first, then alphabetical. */
static int cmp_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x, y);
}

static OWN int check_sorted(const int *v, int n)
{
	for (int i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return 0;
	return 1;
}

static OWN long sort_numbers(void)
{
	int v[NVALS];
	long sum = 0;

	for (int i = 0; i < NVALS; i++)
		v[i] = next_rand() % 1000;
	qsort(v, NVALS, sizeof(v[0]), cmp_int);
	if (!check_sorted(v, NVALS))
		return -1;
	for (int i = 0; i < NVALS; i += 7)
		sum += v[i];
	return sum;
}

static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Ackermann's function, small: deep, irregular recursion. */
static int ack(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

struct text_stats {
	int vowels, consonants, digits, spaces, punct, words;
};

static OWN void classify_char(int c, struct text_stats *st)
{
	switch (tolower(c)) {
	case 'a': case 'e': case 'i': case 'o': case 'u':
		st->vowels++;
		break;
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		st->digits++;
		break;
	case ' ': case '\t': case '\n':
		st->spaces++;
		break;
	case '.': case ',': case ';': case ':': case '!': case '?':
		st->punct++;
		break;
	default:
		if (isalpha(c))
			st->consonants++;
		break;
	}
}

static OWN void text_stats(const char *text, struct text_stats *st)
{
	int in_word = 0;

	memset(st, 0, sizeof(*st));
	for (const char *p = text; *p; p++) {
		classify_char((unsigned char)*p, st);
		if (isalnum((unsigned char)*p)) {
			st->words += !in_word;
			in_word = 1;
		} else {
			in_word = 0;
		}
	}
}

/* Reverses every word of @s in place. */
static OWN void reverse_words(char *s)
{
	char *w = s;

	while (*w) {
		size_t len = strcspn(w, " ,.");

		for (size_t i = 0; i < len / 2; i++) {
			char t = w[i];

			w[i] = w[len - 1 - i];
			w[len - 1 - i] = t;
		}
		w += len;
		w += strspn(w, " ,.");
	}
}

/* A tiny stack machine: a switch the compiler turns into a jump table. */
enum op { OP_PUSH, OP_ADD, OP_SUB, OP_MUL, OP_DUP, OP_SWAP, OP_JNZ, OP_HALT };

static OWN long run_program(const int *code)
{
	long stack[16];
	int sp = 0, pc = 0;

	for (;;) {
		switch (code[pc++]) {
		case OP_PUSH:
			stack[sp++] = code[pc++];
			break;
		case OP_ADD:
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case OP_SUB:
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case OP_MUL:
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case OP_DUP:
			stack[sp] = stack[sp - 1];
			sp++;
			break;
		case OP_SWAP: {
			long t = stack[sp - 1];

			stack[sp - 1] = stack[sp - 2];
			stack[sp - 2] = t;
			break;
		}
		case OP_JNZ:
			if (stack[--sp])
				pc = code[pc];
			else
				pc++;
			break;
		case OP_HALT:
		default:
			return sp ? stack[sp - 1] : 0;
		}
	}
}

/* acc = 1; n = 12; do { acc *= 2; n -= 1; } while (n); result acc + 7 */
static const int program[] = {
	OP_PUSH, 1, OP_PUSH, 12,
	/* 4: loop with [acc, n] on the stack */
	OP_SWAP, OP_PUSH, 2, OP_MUL, OP_SWAP, OP_PUSH, 1, OP_SUB,
	OP_DUP, OP_JNZ, 4,
	OP_SWAP, OP_PUSH, 7, OP_ADD, OP_HALT,
};

static const char *const names[] = {
	"qsort", "strlen", "memcpy", "printf", "snprintf", "strcspn",
	"tolower", "isalpha", "malloc", "free", "strcmp", "puts",
};

static OWN void sort_names(char *out, size_t len)
{
	const char *v[sizeof(names) / sizeof(names[0])];
	size_t n = sizeof(v) / sizeof(v[0]), used = 0;

	memcpy(v, names, sizeof(v));
	qsort(v, n, sizeof(v[0]), cmp_name);
	for (size_t i = 0; i < n && used < len; i++)
		used += snprintf(out + used, len - used, "%s%s", i ? "," : "",
				 v[i]);
}

int main(void)
{
	static const char text[] =
		"The quick brown fox jumps over the lazy dog, 42 times! "
		"Pack my box with five dozen liquor jugs; then 7 more.";
	struct text_stats st;
	char buf[256], list[256];
	long sum;

	printf("oracle-libc main %p\n", (void *)main);
	sum = sort_numbers();
	text_stats(text, &st);
	snprintf(buf, sizeof(buf), "%s", text);
	reverse_words(buf);
	sort_names(list, sizeof(list));
	printf("sum %ld fib %ld ack %d vm %ld\n", sum, fib(16), ack(2, 3),
	       run_program(program));
	printf("vowels %d consonants %d digits %d spaces %d punct %d words %d\n",
	       st.vowels, st.consonants, st.digits, st.spaces, st.punct,
	       st.words);
	printf("%s\n%s\n", buf, list);
	return 0;
}
