#!/usr/bin/env python3
"""The public headers read by a binding generator as they are: Python's cffi (Debian's
python3-cffi) takes every declaration of smdmx/smdmx.h, its <...> includes left out (cffi
knows the C types they give) and run through `cpp -P -DSMDMX_API=`, then calls the shared
library through them: its version against the headers' and meson's, a model read from
memory, its joints and corners, and an error with its code, line and column. Then the rule
for NULL (doc/library.md) over every function cffi read: each called with every pointer NULL,
its numbers 0 and again 1, in a process of its own, ends without a crash; and each that takes
an smdmx_error, given one and every other pointer NULL, says a usage error (but the creators,
which need nothing, and the readers from memory, for which NULL and 0 bytes are an empty
file).

usage: binding.py SOURCE_ROOT SHARED_LIBRARY VERSION
Exit 77 (skipped, said) when cffi or cpp is not there."""
import os
import re
import shutil
import subprocess
import sys

root, library, version = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import cffi
except ImportError:
    print("SKIP: no cffi for this python3 (Debian: apt-get install python3-cffi)")
    sys.exit(77)
if not shutil.which("cpp"):
    print("SKIP: no cpp (the C preprocessor)")
    sys.exit(77)

include = os.path.join(root, "include")


def expand(path, seen):
    """The header at path with the headers of this project it includes in place, once each,
    and the system's includes left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if m:
                p = os.path.join(os.path.dirname(path), m.group(1))
                if not os.path.exists(p):
                    p = os.path.join(include, m.group(1))
                p = os.path.normpath(p)
                if p not in seen:
                    seen.add(p)
                    out.append(expand(p, seen))
                continue
            if re.match(r"\s*#\s*include\s*<", line):
                continue
            out.append(line)
    return "\n".join(out)


text = expand(os.path.join(include, "smdmx", "smdmx.h"), set())
pp = subprocess.run(["cpp", "-P", "-DSMDMX_API="], input=text, capture_output=True, text=True)
if pp.returncode:
    print("FAIL: cpp:", pp.stderr)
    sys.exit(1)
fails = passes = 0


def check(name, want, got):
    global fails, passes
    if want != got:
        print(f"FAIL: {name}\n  want: {want!r}\n  got:  {got!r}")
        fails += 1
    else:
        passes += 1


ffi = cffi.FFI()
try:
    ffi.cdef(pp.stdout)
except Exception as e:  # cffi's parser says where it stopped
    print("FAIL: cffi cannot read the headers:", e)
    sys.exit(1)
lib = ffi.dlopen(library)

major, minor, patch = ffi.new("int *"), ffi.new("int *"), ffi.new("int *")
v = ffi.string(lib.smdmx_version(major, minor, patch)).decode()
check("the library's version is meson's", version, v)
check("the parts of the version", version, f"{major[0]}.{minor[0]}.{patch[0]}")
check("the headers' version is the library's", f'#define SMDMX_VERSION_STRING "{version}"' in text, True)
check("the version with its parts left out", version, ffi.string(lib.smdmx_version(ffi.NULL, ffi.NULL, ffi.NULL)).decode())

smd = (b'version 1\nnodes\n0 "root" -1\n1 "arm" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\nend\n'
       b"triangles\nskin\n0 0 0 0 0 0 1 0 0 1 1 1\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n")
err = ffi.new("smdmx_error *")
scene = lib.smdmx_smd_read_memory(smd, len(smd), ffi.NULL, err, ffi.NULL)
check("a model read from memory", True, scene != ffi.NULL)
if scene != ffi.NULL:
    check("its joints", (2, "root", "arm"), (scene.joint_count, ffi.string(scene.joints[0].name).decode(),
                                             ffi.string(scene.joints[1].name).decode()))
    check("its corners", 3, scene.meshes[0].corner_count)
    lib.smdmx_scene_free(scene)
bad = smd.replace(b"0 1 0 0 0 0 1 1 0", b"0 1 x 0 0 0 1 1 0")
scene = lib.smdmx_smd_read_memory(bad, len(bad), ffi.NULL, err, ffi.NULL)
check("a bad number read", True, scene == ffi.NULL)
check("its error: code, line, column, message", ("bad-number", 14, 5, "expected position y"),
      (ffi.string(lib.smdmx_error_code_name(err.code)).decode(), err.line, err.column, ffi.string(err.message).decode()))


def call_in_child(f, args_of):
    """f called with args_of(type) in a forked process: ("signal", n), or ("exit", text)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = args_of(ffi.typeof(f))
            f(*out[0])
            text = out[1]() if out[1] else ""
        except Exception as e:  # a value cffi refuses for a parameter: not the library's
            text = "python: " + str(e)
        os.write(w, text.encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return ("signal", os.WTERMSIG(status))
    return ("exit", b"".join(chunks).decode())


def value(t, n, err=None):
    if err is not None and t.cname == "smdmx_error *":
        return err
    if t.kind in ("pointer", "function"):
        return ffi.NULL
    if t.kind == "struct":
        return ffi.new(t.cname + " *")[0]
    if t.kind == "primitive" and t.cname in ("float", "double"):
        return float(n)
    if t.kind == "primitive" and t.cname == "char":
        return b"Z" if n else b"\0"
    return n


functions = []
for name in sorted(dir(lib)):
    if name.startswith("smdmx_"):
        try:
            f = getattr(lib, name)
        except (AttributeError, ffi.error):
            continue
        if callable(f):
            functions.append((name, f))
declared = sorted(set(re.findall(r"SMDMX_API[^(;]*?\b(smdmx_\w+)\s*\(", text)))
check("cffi can call every function the headers declare, by name", declared, [name for name, _ in functions])
crashed = []
for name, f in functions:
    for n in (0, 1):
        got = call_in_child(f, lambda t, n=n: ([value(a, n) for a in t.args], None))
        if got[0] == "signal":
            crashed.append(f"{name} (numbers {n}): signal {got[1]}")
check("no function crashes on NULL pointers", [], crashed)
fine = {"smdmx_dm_create": "0", "smdmx_scene_new": "0", "smdmx_dmx_read_memory": "4", "smdmx_smd_read_memory": "4",
        # options NULL are the defaults, which can be used
        "smdmx_dmx_write_options_check": "0", "smdmx_model_options_check": "0"}
usage = lib.SMDMX_ERROR_USAGE
said = []
for name, f in functions:
    if not any(a.cname == "smdmx_error *" for a in ffi.typeof(f).args):
        continue
    err = ffi.new("smdmx_error *")
    got = call_in_child(f, lambda t, err=err: ([value(a, 0, err) for a in t.args],
                                                lambda: f"{err.code} {ffi.string(err.message).decode()}"))
    code = got[1].split(" ")[0] if got[0] == "exit" else "crash"
    if code != fine.get(name, str(usage)):
        said.append(f"{name}: {got}")
check("a NULL where a call needs a pointer is a usage error", [], said)
# arrays the options point to, an entry NULL; the calls that say NULL is "nothing done"
bo = ffi.new("smdmx_batch_options *")
ins = ffi.new("const char *[2]", [ffi.new("char[]", b"a.smd"), ffi.NULL])
bo.inputs, bo.input_count = ins, 2
err = ffi.new("smdmx_error *")
check("a batch with a NULL input: nothing done, said",
      (True, "smdmx_batch_convert: an input is NULL"),
      (lib.smdmx_batch_convert(bo, err) == ffi.NULL and err.code == usage, ffi.string(err.message).decode()))
po = ffi.new("smdmx_project_options *")
po.outdir = ffi.new("char[]", b"out")
check("projects with their QC list NULL: nothing done, said",
      (True, "smdmx_projects_convert: qcs is NULL"),
      (lib.smdmx_projects_convert(ffi.NULL, 1, ffi.NULL, 0, po, err) == ffi.NULL and err.code == usage,
       ffi.string(err.message).decode()))
check("a conversion without options: nothing done, a usage error", (True, usage),
      (lib.smdmx_convert(ffi.NULL, err) == ffi.NULL, err.code))
print(f"binding: {passes} passed, {fails} failed")
sys.exit(1 if fails else 0)
