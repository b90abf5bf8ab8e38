/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-user oracle: an account of a program's taken branches that owes
 * nothing to libbts.  qemu-x86_64 -singlestep -d exec,nochain logs the pc
 * of every instruction it runs, in order; a pair of consecutive pcs (p, q)
 * is a taken branch when the instruction at p (decoded with Zydis from the
 * program's file) is a jump, call or return, or a conditional branch whose
 * q is not its fall-through (README.md, "What a record is").  Tests
 * compare that list with what `btrace dump --raw` prints.
 *
 * Helpers that can fail return -1 with a one-line reason in @err.
 */
#ifndef ORACLE_H
#define ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

#define ORACLE_ERR 256

/* ------------------------------------------------------ pairs (pairs.c) */

struct oracle_pair {
	uint64_t from;
	uint64_t to;
};

struct oracle_pairs {
	struct oracle_pair *v;
	size_t n;
	size_t cap;
};

void oracle_pairs_add(struct oracle_pairs *p, uint64_t from, uint64_t to);
void oracle_pairs_free(struct oracle_pairs *p);
/* How many pairs start at @from. */
size_t oracle_pairs_count_from(const struct oracle_pairs *p, uint64_t from);

/* ------------------------------------------ the ELF file (elf_image.c) */

struct oracle_seg {
	uint64_t vaddr;
	uint64_t offset;	/* in the file */
	uint64_t size;		/* bytes in the file */
	const unsigned char *bytes;
};

struct oracle_sym {
	char *name;
	uint64_t value;
	uint64_t size;
	bool func;		/* STT_FUNC; otherwise a label (STT_NOTYPE) */
};

/* An executable's code (its PF_X load segments) and its .symtab. */
struct oracle_image {
	unsigned char *file;
	size_t file_size;
	struct oracle_seg *segs;
	size_t nsegs;
	struct oracle_sym *syms;	/* sorted by value */
	size_t nsyms;
	bool is32;		/* ELFCLASS32: i386 code */
};

int oracle_image_open(const char *path, struct oracle_image *img,
		      char *err, size_t errlen);
void oracle_image_close(struct oracle_image *img);
/* Code bytes at link-time address @vaddr: how many (0 outside the code). */
size_t oracle_image_read(const struct oracle_image *img, uint64_t vaddr,
			 void *buf, size_t len);
/* The link-time address of the symbol @name; 0 when there is none. */
uint64_t oracle_image_symbol(const struct oracle_image *img, const char *name);
/* Whether @vaddr lies inside a function symbol (value, size). */
bool oracle_image_in_func(const struct oracle_image *img, uint64_t vaddr);
/* "symbol+0xoff" for @vaddr into @buf, "?" when no symbol precedes it. */
const char *oracle_image_name(const struct oracle_image *img, uint64_t vaddr,
			      char *buf, size_t len);

/*
 * The load bias of oracle-libc from its first output line,
 * "oracle-libc main 0xADDR"; -1 when there is none.
 */
int oracle_libc_bias(const char *out, const struct oracle_image *img,
		     uint64_t *bias);

/* --------------------------------- instruction classes (classify.c) */

enum oracle_class {
	ORACLE_PLAIN,		/* no control transfer (syscall, rep movs too) */
	ORACLE_COND,		/* jcc, loop, jrcxz: taken or not */
	ORACLE_UNCOND,		/* jmp, call, ret, direct or indirect */
};

/*
 * The class of the instruction in @bytes (32-bit code when @is32) and its
 * length; -1 if invalid.
 */
int oracle_classify(bool is32, const void *bytes, size_t len,
		    unsigned int *insn_len);
/* AT&T text of the instruction at @vaddr of @img (in its mode), into @buf. */
const char *oracle_disasm(const struct oracle_image *img, uint64_t vaddr,
			  char *buf, size_t len);

/* ----------------------------------------------- qemu (qemu_log.c) */

struct qemu_log_stats {
	uint64_t insns;		/* instructions logged */
	uint64_t outside;	/* of which outside the image (not decoded) */
};

/*
 * Runs @prog under qemu-x86_64 -singlestep -d exec,nochain, logging into
 * @log; @cmd gets the program's outputs and status.  0, or -1 if qemu
 * could not be started.
 */
int qemu_run(const char *prog, const char *log, struct harness_cmd *cmd);
/* qemu_run() for an i386 program, under qemu-i386. */
int qemu_run32(const char *prog, const char *log, struct harness_cmd *cmd);
/* A qemu "Trace" line: 1 and *pc, 0 for another line, -1 if malformed. */
int qemu_log_pc(const char *line, uint64_t *pc);
/*
 * Appends the taken branches of the log to @out.  @img is mapped at
 * @bias; instructions outside its code are not decoded, so pairs that
 * start there are left out (and counted in @st->outside).
 */
int qemu_log_branches(const char *log, const struct oracle_image *img,
		      uint64_t bias, struct oracle_pairs *out,
		      struct qemu_log_stats *st, char *err, size_t errlen);

/* ----------------------------------- btrace dump --raw (raw_reader.c) */

struct oracle_raw_thread {
	long tid;
	struct oracle_pairs pairs;
	size_t markers;		/* "# " lines other than the thread header */
};

struct oracle_raw {
	struct oracle_raw_thread *t;
	size_t n;
};

int oracle_raw_parse(const char *text, struct oracle_raw *out,
		   char *err, size_t errlen);
void oracle_raw_free(struct oracle_raw *d);

/* ---------------------------------------------- comparing (pairs.c) */

/*
 * Appends to @out the pairs of @in whose both ends lie in functions of
 * @img mapped at @bias, as link-time addresses (offsets for a PIE).
 */
void oracle_filter_funcs(const struct oracle_pairs *in,
			 const struct oracle_image *img, uint64_t bias,
			 struct oracle_pairs *out);
/* The index of the first difference, or -1 when the lists are equal. */
long oracle_first_diff(const struct oracle_pairs *want,
		       const struct oracle_pairs *got);
/*
 * A malloc'ed account of the difference at @idx: both lists around it,
 * symbolized and disassembled with @img (addresses at @bias).
 */
char *oracle_report(const struct oracle_pairs *want,
		    const struct oracle_pairs *got, long idx,
		    const struct oracle_image *img, uint64_t bias);

/* ------------------------------ qemu against btrace, asserting (compare.c) */

/*
 * Runs @prog under qemu (qemu-i386 when @img->is32); returns its log
 * (malloc'ed).  Fails the test unless the program exits 0.
 */
char *oracle_qemu_trace(const char *prog, const struct oracle_image *img,
			struct harness_cmd *cmd);
/* The branches of @log with @img loaded at @bias; removes and frees @log. */
void oracle_qemu_branches(char *log, const struct oracle_image *img,
			  uint64_t bias, struct oracle_pairs *out,
			  struct qemu_log_stats *st);
/*
 * Records @prog with btrace (BLOCK: lossless; @source, or the default one
 * when NULL) into @trace_name in the test's temporary folder and reads
 * `btrace dump --raw` of it into @raw (for qemu-user, without QEMU's own
 * threads, which have no records).
 */
void oracle_btrace_branches(const char *prog, const char *trace_name,
			    const char *source, struct oracle_raw *raw,
			    struct harness_cmd *rec);
/* Fails the test with oracle_report() when @want and @got differ. */
void oracle_expect_same(const struct oracle_pairs *want,
			const struct oracle_pairs *got,
			const struct oracle_image *img, const char *who);
/* oracle_libc_bias() of @out; fails the test when there is none. */
uint64_t oracle_load_bias(const char *out, const struct oracle_image *img);
/*
 * The static program @name (no libc, one thread, printing "@name ok"),
 * compared whole: every branch qemu logs is a record btrace dumps, with no
 * gap or other marker.
 */
void oracle_expect_static_whole(const char *name, const char *source);
/* The variant's own check of the load bias btrace's trace gives @prog. */
typedef void (*oracle_bias_check)(const char *prog,
				  const struct oracle_image *img,
				  uint64_t bias);
/*
 * The dynamic program @name (with libc), recorded by @source (NULL: the
 * default) into @trace_name and compared with qemu's log (@who names it)
 * on the program's own functions.
 */
void oracle_expect_libc_program(const char *name, const char *trace_name,
				const char *source, const char *who,
				oracle_bias_check check);

#endif /* ORACLE_H */
