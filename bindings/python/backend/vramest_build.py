"""The build backend (PEP 517 / PEP 660) of the vramest Python package:
standard library only, so that ``python3 -m pip wheel bindings/python``
works offline, with pip's build isolation, on a machine without setuptools.

The wheel bundles libvramest.so.1 next to the package (the binding loads a
bundled copy first after $VRAMEST_LIBRARY). Which library, in this order:

1. ``--config-settings library=PATH`` (pip ``-C library=PATH``), or the
   environment variable ``VRAMEST_WHEEL_LIBRARY=PATH``; the value ``none``
   builds a pure wheel that finds the system's library at import;
2. ``$VRAMEST_LIBRARY``, the library the binding would load;
3. the checkout's meson build directory, ``../../build/lib/libvramest.so.1``
   from bindings/python (what the README's first command builds);
4. ``pkg-config --variable=libdir vramest``, a ``meson install``-ed copy.

None found is an error that says these four things, never a wheel that
silently lacks the library.
"""
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sysconfig
import tarfile
import time
import zipfile

SONAME = "libvramest.so.1"
PACKAGE = "vramest"


def _project():
    """name, version, description, requires-python, license of pyproject's [project]."""
    with open("pyproject.toml", "rb") as f:
        raw = f.read()
    try:
        import tomllib  # Python 3.11+
        project = tomllib.loads(raw.decode("utf-8"))["project"]
        lic = project.get("license", {})
        return {"name": project["name"], "version": project["version"],
                "description": project.get("description", ""),
                "requires-python": project.get("requires-python", ""),
                "license": lic.get("text", "") if isinstance(lic, dict) else str(lic)}
    except ImportError:  # older Pythons: the flat `key = "value"` lines this file uses
        text = raw.decode("utf-8")
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        values = dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"', section, re.M))
        lic = re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"', section, re.M)
        return {"name": values["name"], "version": values["version"],
                "description": values.get("description", ""),
                "requires-python": values.get("requires-python", ""), "license": lic.group(1) if lic else ""}


def _pkg_config_libdir():
    exe = os.environ.get("PKG_CONFIG") or shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "vramest"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def find_library(config_settings=None):
    """(path to bundle or None for a pure wheel, how it was chosen)."""
    chosen = (config_settings or {}).get("library") or os.environ.get("VRAMEST_WHEEL_LIBRARY")
    if chosen:
        if chosen == "none":
            return None, "none asked for"
        if not os.path.isfile(chosen):
            raise RuntimeError("vramest wheel: the library %r to bundle is not a file" % chosen)
        return chosen, "asked for"
    tried = []
    env = os.environ.get("VRAMEST_LIBRARY")
    candidates = [(env, "$VRAMEST_LIBRARY")] if env else []
    candidates.append((os.path.join("..", "..", "build", "lib", SONAME), "the checkout's build directory"))
    libdir = _pkg_config_libdir()
    if libdir:
        candidates.append((os.path.join(libdir, SONAME), "pkg-config --variable=libdir vramest"))
    for path, how in candidates:
        if os.path.isfile(path):
            return os.path.realpath(path), how
        tried.append("%s (%s)" % (os.path.abspath(path), how))
    raise RuntimeError(
        "vramest wheel: no %s to bundle. Build the library first (meson setup build && meson compile -C build, "
        "from the repository root), or name it: VRAMEST_WHEEL_LIBRARY=/path/to/%s (pip: -C library=PATH); "
        "VRAMEST_WHEEL_LIBRARY=none builds a wheel that uses the system's library. Tried: %s"
        % (SONAME, SONAME, "; ".join(tried) or "nothing"))


def _tag(bundled):
    if not bundled:
        return "py3-none-any"
    return "py3-none-" + re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _metadata(project):
    with open("README.md", encoding="utf-8") as f:
        readme = f.read()
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"],
             "Summary: " + project["description"], "License: " + project["license"]]
    if project["requires-python"]:
        lines.append("Requires-Python: " + project["requires-python"])
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + readme


def _dist_info(project):
    return "%s-%s.dist-info" % (project["name"], project["version"])


def _wheel_file(bundled):
    return ("Wheel-Version: 1.0\nGenerator: vramest_build\nRoot-Is-Purelib: %s\nTag: %s\n"
            % ("false" if bundled else "true", _tag(bundled)))


def _timestamp():
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01: reproducible wheels
    return time.gmtime(max(epoch, 315532800))[:6]


class _Wheel:
    """A wheel being written: files plus the RECORD of their hashes."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, date_time=_timestamp())
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self, dist_info):
        record = dist_info + "/RECORD"
        body = "\n".join(self.records + [record + ",,"]) + "\n"
        info = zipfile.ZipInfo(record, date_time=_timestamp())
        info.external_attr = 0o100644 << 16
        self.zip.writestr(info, body.encode())
        self.zip.close()


def _package_files():
    out = []
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE, name), "rb") as f:
                out.append((PACKAGE + "/" + name, f.read()))
    return out


def _write_wheel(wheel_directory, files, bundled):
    project = _project()
    dist_info = _dist_info(project)
    filename = "%s-%s-%s.whl" % (project["name"], project["version"], _tag(bundled))
    wheel = _Wheel(os.path.join(wheel_directory, filename))
    for name, data, *mode in files:
        wheel.add(name, data, *mode)
    wheel.add(dist_info + "/METADATA", _metadata(project).encode("utf-8"))
    wheel.add(dist_info + "/WHEEL", _wheel_file(bundled).encode())
    wheel.add(dist_info + "/top_level.txt", (PACKAGE + "\n").encode())
    wheel.close(dist_info)
    return filename


# ---------------------------------------------------------------- PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    bundled, _ = find_library(config_settings)
    path = os.path.join(metadata_directory, _dist_info(project))
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(project))
    with open(os.path.join(path, "WHEEL"), "w") as f:
        f.write(_wheel_file(bundled))
    return os.path.basename(path)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    library, _ = find_library(config_settings)
    files = _package_files()
    if library:
        with open(library, "rb") as f:
            files.append((PACKAGE + "/" + SONAME, f.read(), 0o755))
    return _write_wheel(wheel_directory, files, library is not None)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth puts this directory on sys.path: the package runs
    from the source tree and finds the library as it would uninstalled."""
    pth = (os.path.abspath(".") + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [("__editable__.%s.pth" % PACKAGE, pth)], False)


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = "%s-%s" % (project["name"], project["version"])
    path = os.path.join(sdist_directory, base + ".tar.gz")
    members = ["pyproject.toml", "README.md"] + [n for n, _ in _package_files()]
    members += ["backend/" + n for n in sorted(os.listdir("backend")) if n.endswith(".py")]
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in members:
            tar.add(name, arcname=base + "/" + name, filter=_reset_owner)
        pkg_info = _metadata(project).encode("utf-8")
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size, info.mtime, info.mode = len(pkg_info), 315532800, 0o644
        tar.addfile(info, io.BytesIO(pkg_info))
    return os.path.basename(path)


def _reset_owner(info):
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 315532800
    return info
