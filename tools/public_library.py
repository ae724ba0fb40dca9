#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The installed libop2.a exports the API and nothing else.

The library's objects and Debian's static libtcc.a are linked into one relocatable object, in
which every global symbol but the API's is made local: a program may then define `g`, `file`,
`next`, `load` (TinyCC's globals) or any op2_* name of its own. The API is derived from the
public headers (every function or variable they declare with external linkage), never kept by
hand.

  public_library.py link  OUT.o INTERNAL.a LIBTCC.a --cc CC... --nm NM --objcopy OBJCOPY -- HEADERS...
  public_library.py check LIB.a LIBTCC.a --nm NM -- HEADERS...
  public_library.py tcc-names OUT.c OUT.cpp LIBTCC.a --nm NM [--except NAME...]

`link` makes the object and fails when a declared name is not defined or anything else stays
global; `check` (a test) says the same of a built library; `tcc-names` writes a translation unit,
valid C and C++, that defines every global TinyCC defines (for the link test), with a function
that says whether they still hold their values.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KEYWORDS = set("""
alignas alignof and asm auto bool break case catch char char16_t char32_t class const constexpr
const_cast continue decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not nullptr
operator or private protected public register reinterpret_cast restrict return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor _Bool
_Generic _Noreturn _Static_assert _Thread_local __attribute__ __restrict
""".split())

TOKEN = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\S')


def strip_header(text):
    """The header's C without comments and preprocessor lines (both branches of a conditional stay:
    what either language sees is declared)."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'\\\n', ' ', text)
    return '\n'.join('' if line.lstrip().startswith('#') else line for line in text.split('\n'))


def declared_names(text):
    """Names of the functions and variables a header declares at file scope with external
    linkage: statements at depth 0 that are not typedefs, inline or static functions, templates
    or type definitions."""
    names = set()
    stmt, depth, braces = [], 0, []  # braces: for each open brace, whether it is extern "C" { }
    for tok in TOKEN.findall(strip_header(text)):
        if tok == '{':
            braces.append(depth == 0 and stmt[-2:] == ['extern', '"C"'])
            if braces[-1]:
                stmt = []
            else:
                depth += 1
            continue
        if tok == '}':
            if braces.pop():
                stmt = []
                continue
            depth -= 1
            if depth == 0 and '(' in stmt and '=' not in stmt:
                stmt = []  # a function's body: an inline definition, no symbol of the library
            continue
        if tok in '([':
            if depth == 0:
                stmt.append(tok)
            depth += 1
            continue
        if tok in ')]':
            depth -= 1
            continue
        if depth == 0 and tok == ';':
            name = statement_name(stmt)
            if name:
                names.add(name)
            stmt = []
        elif depth == 0:
            stmt.append(tok)
    return names


def statement_name(stmt):
    """The name a file-scope declaration gives external linkage to, or None."""
    if not stmt or {'typedef', 'template', 'using', 'static', 'inline'} & set(stmt):
        return None
    idents = []
    for tok in stmt:
        if tok in ('(', '=', '['):
            break  # a function's name comes before its parameters; a variable's before these
        if re.fullmatch(r'[A-Za-z_]\w*', tok) and tok not in KEYWORDS:
            idents.append(tok)
    if '(' not in stmt and 'extern' not in stmt:
        return None  # a type's definition (struct, enum), not a declaration of an object
    return idents[-1] if idents else None


def api_of(headers):
    api = {}
    for h in headers:
        with open(h, encoding='utf-8') as f:
            for name in declared_names(f.read()):
                api.setdefault(name, os.path.basename(h))
    return api


def defined_globals(nm, path):
    out = subprocess.run([nm, '-g', '--defined-only', '--format=posix', path], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not parts[0].endswith(':') and not parts[0].endswith(']'):
            names.add(parts[0])
    return names


def problems(exported, api, tcc):
    out = []
    for name in sorted(set(api) - exported):
        out.append(f"{name} is declared in {api[name]} but libop2 does not define it")
    for name in sorted(exported - set(api)):
        where = "TinyCC's" if name in tcc else "an internal"
        out.append(f"{name} is exported but is not API ({where} name; the public headers do not "
                   "declare it)")
    return out


def cmd_link(a):
    tcc = defined_globals(a.nm, a.libtcc)
    api = api_of(a.headers)
    with tempfile.TemporaryDirectory() as tmp:
        whole = os.path.join(tmp, 'whole.o')
        keep = os.path.join(tmp, 'api.txt')
        # One relocatable object: every object of the library, and the members of libtcc.a they
        # need. Its symbols still resolve inside it once made local.
        subprocess.run(a.cc + ['-r', '-nostdlib', '-o', whole, '-Wl,--whole-archive', a.internal,
                               '-Wl,--no-whole-archive', a.libtcc], check=True)
        with open(keep, 'w', encoding='utf-8') as f:
            f.write(''.join(n + '\n' for n in sorted(api)))
        subprocess.run([a.objcopy, '--keep-global-symbols=' + keep, whole, a.out], check=True)
    bad = problems(defined_globals(a.nm, a.out), api, tcc)
    if bad:
        os.unlink(a.out)
        sys.exit('public_library.py: ' + '\n  '.join(['the public libop2 is wrong:'] + bad))


def cmd_check(a):
    tcc = defined_globals(a.nm, a.libtcc)
    api = api_of(a.headers)
    exported = defined_globals(a.nm, a.lib)
    bad = problems(exported, api, tcc)
    clash = sorted(exported & tcc)
    for p in bad:
        print(p)
    if clash:
        print('TinyCC names exported: ' + ' '.join(clash))
    print(f'{a.lib}: {len(exported)} exported names, {len(api)} declared by the headers, '
          f'{len(tcc)} TinyCC globals, none of them exported' if not bad and not clash else
          f'{a.lib}: {len(bad)} problems')
    sys.exit(1 if bad or clash else 0)


def cmd_tcc_names(a):
    names = sorted(n for n in defined_globals(a.nm, a.libtcc)
                   if n not in KEYWORDS and n not in a.exclude)
    body = ['/* Generated by tools/public_library.py from ' + os.path.basename(a.libtcc) + ': every',
            ' * global TinyCC defines, defined again by the program. */']
    body += [f'int {n} = {i + 1};' for i, n in enumerate(names)]
    body += ['#ifdef __cplusplus', 'extern "C"', '#endif',
             'int tcc_names_changed(void);',
             'int tcc_names_changed(void) {', '  int changed = 0;']
    body += [f'  changed += {n} != {i + 1};' for i, n in enumerate(names)]
    body += ['  return changed;', '}', f'/* {len(names)} names */', '']
    for path in (a.out_c, a.out_cpp):
        with open(path, 'w', encoding='utf-8') as f:
            f.write('\n'.join(body))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    link = sub.add_parser('link')
    link.add_argument('out')
    link.add_argument('internal')
    link.add_argument('libtcc')
    link.add_argument('--cc', nargs='+', required=True)
    link.add_argument('--nm', required=True)
    link.add_argument('--objcopy', required=True)
    link.add_argument('headers', nargs='+')
    check = sub.add_parser('check')
    check.add_argument('lib')
    check.add_argument('libtcc')
    check.add_argument('--nm', required=True)
    check.add_argument('headers', nargs='+')
    names = sub.add_parser('tcc-names')
    names.add_argument('out_c')
    names.add_argument('out_cpp')
    names.add_argument('libtcc')
    names.add_argument('--nm', required=True)
    names.add_argument('--except', dest='exclude', nargs='*', default=[])
    a = p.parse_args()
    {'link': cmd_link, 'check': cmd_check, 'tcc-names': cmd_tcc_names}[a.cmd](a)


if __name__ == '__main__':
    main()
