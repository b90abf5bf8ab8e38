// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * 32-bit code: the control-transfer classes of insn.c for a decoder in
 * legacy 32-bit mode, where 0x40..0x4f are inc/dec, not REX prefixes, and
 * call/ret move 4 bytes.  The ptrace-step source single-steps 32-bit
 * programs, so only the class and length of each instruction matter.
 */
#include <elf.h>
#include <endian.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "abi32.h"
#include "trace_format.h"
#include "trace_index.h"

/* The i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define NR32_SIGRETURN		119
#define NR32_RT_SIGRETURN	173

static const ZydisDecoder *decoder32(void)
{
	static ZydisDecoder dec;
	static bool ready;

	/* Initialising twice from two threads writes the same bytes. */
	if (!ready) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32,
				 ZYDIS_STACK_WIDTH_32);
		ready = true;
	}
	return &dec;
}

static int kind_of(const ZydisDecodedInstruction *zi)
{
	/* Indirect near jmp/call are opcode FF (/2, /4). */
	bool rel = zi->opcode != 0xff;

	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return BTS_INSN_FAR;
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return BTS_INSN_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return rel ? BTS_INSN_JUMP : BTS_INSN_JUMP_IND;
	case ZYDIS_CATEGORY_CALL:
		return rel ? BTS_INSN_CALL : BTS_INSN_CALL_IND;
	case ZYDIS_CATEGORY_RET:
		return zi->mnemonic == ZYDIS_MNEMONIC_RET ? BTS_INSN_RET
							  : BTS_INSN_FAR;
	case ZYDIS_CATEGORY_SYSCALL:	/* sysenter */
		return BTS_INSN_SYSCALL;
	case ZYDIS_CATEGORY_INTERRUPT:	/* int $0x80 */
		return BTS_INSN_INT;
	default:
		break;
	}
	if (zi->mnemonic == ZYDIS_MNEMONIC_XBEGIN)
		return BTS_INSN_COND;
	return BTS_INSN_OTHER;
}

int bts_abi32_classify(const void *buf, size_t len, struct bts_insn *out)
{
	ZydisDecodedInstruction zi;
	ZyanStatus st;

	st = ZydisDecoderDecodeInstruction(decoder32(), NULL, buf, len, &zi);
	if (st == ZYDIS_STATUS_NO_MORE_DATA)
		return bts_fail(BTS_E_TRUNCATED, "instruction runs past %zu bytes", len);
	if (!ZYAN_SUCCESS(st))
		return bts_fail(BTS_E_DECODE, "undecodable 32-bit instruction "
				"(Zydis status 0x%x)", (unsigned int)st);
	out->len = zi.length;
	out->kind = kind_of(&zi);
	out->flags = 0;
	if (zi.meta.category == ZYDIS_CATEGORY_STRINGOP &&
	    (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			      ZYDIS_ATTRIB_HAS_REPNE)))
		out->flags |= BTS_INSN_F_REP;
	return 0;
}

bool bts_abi32_sigreturn(uint64_t nr)
{
	/* The upper half of rax is not the 32-bit program's. */
	return (uint32_t)nr == NR32_SIGRETURN || (uint32_t)nr == NR32_RT_SIGRETURN;
}

static bool elf32_file(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, id, sizeof(id), 0);
	close(fd);
	return n == (ssize_t)sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	       id[EI_CLASS] == ELFCLASS32;
}

const struct bts_session_opts *bts_abi32_opts(const struct bts_session_opts *opts,
					      const char *path,
					      struct bts_session_opts *out)
{
	int source = opts && opts->sz > offsetof(struct bts_session_opts, source) ?
		     opts->source : 0;

	if ((source && source != BTS_SOURCE_AUTO) ||
	    (opts && opts->sz > sizeof(*out)) || !elf32_file(path))
		return opts;
	memset(out, 0, sizeof(*out));
	if (opts)
		memcpy(out, opts, opts->sz);
	out->sz = sizeof(*out);
	out->source = PTBTS_SOURCE_PTRACE_STEP;
	return out;
}

/* ------------------------------------------------------------ the trace */

int bts_writer_abi(struct bts_writer *w, pid_t pid, unsigned int bits)
{
	struct bts_chunk_abi c = {
		.pid = htole32(pid),
		.bits = htole32(bits),
	};

	if (!w || pid <= 0 || (bits != 32 && bits != 64))
		return bts_fail(BTS_E_INVAL, "abi of process %d: %u-bit", (int)pid, bits);
	return bts_writer_chunk(w, BTS_CHUNK_ABI | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

int bts_rd_abi(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off)
{
	struct bts_chunk_abi c;
	long proc;

	if (plen != sizeof(c))
		return bts_fail(BTS_E_FORMAT, "offset %zu: abi chunk has the wrong size", off);
	memcpy(&c, p, sizeof(c));
	c.bits = le32toh(c.bits);
	proc = bts_tindex_process(t, (int32_t)le32toh(c.pid));
	if (proc < 0)
		return bts_fail(BTS_E_FORMAT, "offset %zu: abi of a process that has "
				"not appeared", off);
	if (c.bits != 32 && c.bits != 64)
		return bts_fail(BTS_E_FORMAT, "offset %zu: abi chunk: %u-bit code",
				off, c.bits);
	t->procs[proc].abi_bits = c.bits;
	return 0;
}

int bts_trace_process_bits(const struct bts_trace *t, pid_t pid)
{
	long proc = t ? bts_tindex_process(t, pid) : -1;

	if (proc < 0)
		return bts_fail(BTS_E_INVAL, "no process %d in the trace", (int)pid);
	return t->procs[proc].abi_bits == 32 ? 32 : 64;
}
