package huge

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestEligible checks with the kernel that advised memory may get huge
// pages (smaps' THPeligible), where transparent huge pages are enabled
// for memory that asks: that the advice is given, whether or not the
// kernel then has huge pages to give.
func TestEligible(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(mode, []byte("[madvise]")) {
		t.Skipf("transparent huge pages not in madvise mode: %q %v", mode, err)
	}
	// A control: a mapping of our own, advised directly. Where even it
	// reads not eligible (qemu-user keeps advice from the kernel), there
	// is nothing to check.
	m, err := syscall.Mmap(-1, 0, 4<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(m)
	if err := syscall.Madvise(m, syscall.MADV_HUGEPAGE); err != nil {
		t.Skip(err)
	}
	if ok, err := eligible(uintptr(unsafe.Pointer(&m[0]))); err != nil || !ok {
		t.Skipf("a mapping advised directly is not eligible either (%v): advice does not reach the kernel here", err)
	}
	b := Bytes(8 << 20)
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))) + 4<<20
	if got, err := eligible(mid); err != nil {
		t.Skip(err)
	} else if !got {
		t.Fatalf("the VMA at %#x is not eligible for huge pages after Advise", mid)
	}
}

// eligible reports smaps' THPeligible for the mapping holding addr.
func eligible(addr uintptr) (bool, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line is its range ("lo-hi perms ..."), then
		// come its fields ("Name: value").
		if first, _, _ := strings.Cut(line, " "); !strings.HasSuffix(first, ":") {
			var lo, hi uintptr
			if _, err := fmt.Sscanf(first, "%x-%x", &lo, &hi); err != nil {
				return false, fmt.Errorf("smaps line %q: %v", line, err)
			}
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) == "1", nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("no THPeligible line for %#x", addr)
}

// TestAligned checks that aligned gives whole huge pages: bytes from a
// huge page's boundary, a multiple of Size of them; wider elements from
// less than one element past a boundary, as many as fill the pages.
func TestAligned(t *testing.T) {
	for _, n := range []int{Min, Min + 1, Size, 3*Size + 17, 5 << 20} {
		b := aligned[byte](n, 1)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p%Size != 0 || cap(b)%Size != 0 || len(b) != n || cap(b)-n >= Size {
			t.Fatalf("aligned(%d): at %#x, capacity %d: not whole huge pages", n, p, cap(b))
		}
		type slot [3]uint64
		s := aligned[slot](n/24+1, 24)
		p = uintptr(unsafe.Pointer(unsafe.SliceData(s)))
		if p%Size >= 24 || len(s) != n/24+1 || cap(s) != (len(s)*24+Size-1)/Size*Size/24 {
			t.Fatalf("aligned[slot](%d): at %#x (%d past a boundary), capacity %d", len(s), p, p%Size, cap(s))
		}
		s[len(s)-1], s[:cap(s)][cap(s)-1] = slot{1}, slot{2} // the memory is there
	}
}
