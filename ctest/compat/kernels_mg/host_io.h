/* SPDX-License-Identifier: BSD-3-Clause */
// The program's own host code in a header it includes once, as MG-CFD's io.h and timer.h: a
// function that is not inline, reads a global of the program and calls OP2's API. It comes
// before texts.h in the calling file, so the C++ tier compiles it with texts.h's kernel, which
// does not use it: nothing of it may be left undefined in the kernel's object.
#ifndef T754_HOST_IO_H
#define T754_HOST_IO_H
extern int t754_reports;
void t754_report(const char *what) {
  t754_reports++;
  op_printf("t754: %s\n", what);
}
#endif
