// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: pinning the tracer's buffer pages, charging them to the
 * tracer, and mapping them into the kernel.
 *
 * The buffer stays where the tracer put it, so the tracer reads records
 * with no copy.  Pinning is long-term (FOLL_LONGTERM) and charged to the
 * tracer's locked memory, as mlock() would be: RLIMIT_MEMLOCK bounds what an
 * unprivileged tracer can hold.  Only memory that is nothing but memory is
 * taken: private anonymous pages or shmem (a memfd, shared anonymous memory).
 * A file on disk would have its page cache pinned under writeback, which
 * 6.1's pinning does not refuse by itself, so the mappings are checked here.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ptbts.h"

/* Pages pinned by every session together; sysfs shows it. */
static atomic_long_t ptbts_nr_pinned = ATOMIC_LONG_INIT(0);

/*
 * A page array past INT_MAX bytes would make kvmalloc() warn; no buffer
 * needs a terabyte.
 */
#define PTBTS_MAX_PAGES	(INT_MAX / sizeof(struct page *))

static bool ptbts_file_is_memory(struct file *file)
{
	return file_inode(file)->i_sb->s_magic == TMPFS_MAGIC;
}

/*
 * -EFAULT for a hole, -EOPNOTSUPP for memory that is not plain memory,
 * -EACCES for memory the tracer cannot write.
 */
static int ptbts_check_vma(struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP))
		return -EOPNOTSUPP;
	if (vma->vm_file && !ptbts_file_is_memory(vma->vm_file))
		return -EOPNOTSUPP;
	if (!(vma->vm_flags & VM_WRITE))
		return -EACCES;
	return 0;
}

static int ptbts_check_vmas(struct mm_struct *mm, unsigned long start,
			    unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr;
	int err;

	mmap_assert_locked(mm);
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start > addr)
			return -EFAULT;
		err = ptbts_check_vma(vma);
		if (err)
			return err;
	}
	return 0;
}

/* pin_user_pages() may pin fewer pages than asked: ask again for the rest. */
static int ptbts_pin_range(unsigned long start, unsigned long nr,
			   struct page **pages)
{
	unsigned long done = 0;
	long n;

	while (done < nr) {
		n = pin_user_pages(start + done * PAGE_SIZE, nr - done,
				   FOLL_WRITE | FOLL_LONGTERM, pages + done,
				   NULL);
		if (n <= 0) {
			unpin_user_pages(pages, done);
			return n ? n : -EFAULT;
		}
		done += n;
	}
	return 0;
}

/* The mappings must not change between their check and the pinning. */
static int ptbts_pin_checked(struct mm_struct *mm, unsigned long start,
			     unsigned long nr, struct page **pages)
{
	int err;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	err = ptbts_check_vmas(mm, start, start + nr * PAGE_SIZE);
	if (!err)
		err = ptbts_pin_range(start, nr, pages);
	mmap_read_unlock(mm);
	return err;
}

/**
 * ptbts_buf_pin() - pin, charge and map a buffer of the caller's memory
 * @out:   the new buffer
 * @start: user address, page-aligned
 * @size:  bytes, a non-zero multiple of the page size
 *
 * Return: 0; -ENOMEM past RLIMIT_MEMLOCK (without CAP_IPC_LOCK) or when
 * memory runs out; -EFAULT when part of the range is not mapped;
 * -EOPNOTSUPP for a mapping of a file (other than shmem) or of a device;
 * -EACCES for a mapping the caller cannot write; -EINTR when killed.
 */
int ptbts_buf_pin(struct ptbts_buf **out, unsigned long start,
		  unsigned long size)
{
	unsigned long nr = size >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	struct ptbts_buf *buf;
	int err;

	if (!mm)
		return -EFAULT;
	if (nr > PTBTS_MAX_PAGES)
		return -ENOMEM;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->nr_pages = nr;
	buf->pages = kvmalloc_array(nr, sizeof(*buf->pages), GFP_KERNEL);
	err = -ENOMEM;
	if (!buf->pages)
		goto free_buf;
	err = account_locked_vm(mm, nr, true);
	if (err)
		goto free_pages;
	err = ptbts_pin_checked(mm, start, nr, buf->pages);
	if (err)
		goto unaccount;
	buf->vaddr = vmap(buf->pages, nr, VM_MAP, PAGE_KERNEL);
	err = -ENOMEM;
	if (!buf->vaddr)
		goto unpin;
	mmgrab(mm);
	buf->mm = mm;
	atomic_long_add(nr, &ptbts_nr_pinned);
	*out = buf;
	return 0;

unpin:
	unpin_user_pages(buf->pages, nr);
unaccount:
	account_locked_vm(mm, nr, false);
free_pages:
	kvfree(buf->pages);
free_buf:
	kfree(buf);
	return err;
}

/**
 * ptbts_buf_release() - unmap, unpin and uncharge a buffer, and free it
 * @buf: from ptbts_buf_pin(); no source may write into it any more
 *
 * Sleeps.  The pages are marked dirty: the kernel wrote records into them.
 */
void ptbts_buf_release(struct ptbts_buf *buf)
{
	vunmap(buf->vaddr);
	unpin_user_pages_dirty_lock(buf->pages, buf->nr_pages, true);
	account_locked_vm(buf->mm, buf->nr_pages, false);
	mmdrop(buf->mm);
	atomic_long_sub(buf->nr_pages, &ptbts_nr_pinned);
	kvfree(buf->pages);
	kfree(buf);
}

/**
 * ptbts_pinned_pages() - pages pinned now by every session together
 *
 * Return: the count.
 */
long ptbts_pinned_pages(void)
{
	return atomic_long_read(&ptbts_nr_pinned);
}
