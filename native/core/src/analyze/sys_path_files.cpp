#include "sys_path_files.h"

#include <algorithm>
#include <iterator>

namespace strata::core::detail {

namespace {
// sys.stdlib_module_names of CPython 3.11 without the private ones: the standard library's
// top-level modules and packages.
constexpr const char* kStdlibModules[] = {
      "abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio", "asyncore",
      "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2", "cProfile",
      "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop",
      "collections", "colorsys", "compileall", "concurrent", "configparser", "contextlib",
      "contextvars", "copy", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses",
      "datetime", "dbm", "decimal", "difflib", "dis", "distutils", "doctest", "email", "encodings",
      "ensurepip", "enum", "errno", "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch",
      "fractions", "ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext",
      "glob", "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib",
      "imaplib", "imghdr", "imp", "importlib", "inspect", "io", "ipaddress", "itertools", "json",
      "keyword", "lib2to3", "linecache", "locale", "logging", "lzma", "mailbox", "mailcap",
      "marshal", "math", "mimetypes", "mmap", "modulefinder", "msilib", "msvcrt", "multiprocessing",
      "netrc", "nis", "nntplib", "nt", "ntpath", "nturl2path", "numbers", "opcode", "operator",
      "optparse", "os", "ossaudiodev", "pathlib", "pdb", "pickle", "pickletools", "pipes",
      "pkgutil", "platform", "plistlib", "poplib", "posix", "posixpath", "pprint", "profile",
      "pstats", "pty", "pwd", "py_compile", "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue",
      "quopri", "random", "re", "readline", "reprlib", "resource", "rlcompleter", "runpy", "sched",
      "secrets", "select", "selectors", "shelve", "shlex", "shutil", "signal", "site", "smtpd",
      "smtplib", "sndhdr", "socket", "socketserver", "spwd", "sqlite3", "sre_compile",
      "sre_constants", "sre_parse", "ssl", "stat", "statistics", "string", "stringprep", "struct",
      "subprocess", "sunau", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile",
      "telnetlib", "tempfile", "termios", "textwrap", "this", "threading", "time", "timeit",
      "tkinter", "token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc", "tty",
      "turtle", "turtledemo", "types", "typing", "unicodedata", "unittest", "urllib", "uu", "uuid",
      "venv", "warnings", "wave", "weakref", "webbrowser", "winreg", "winsound", "wsgiref",
      "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo"
};

std::string TopLevel(const std::string& file) {
  size_t slash = file.find('/');
  if (slash != std::string::npos) return file.substr(0, slash);
  return file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0 ? file.substr(0, file.size() - 3) : file;
}
}  // namespace

bool UserFileRelativeToSysPath(const std::string& file, const std::string& script) {
  if (file.empty() || file[0] == '/' || file[0] == '<') return false;
  if (file.find('/') != std::string::npos)
    return script.find('/') != std::string::npos && TopLevel(file) == TopLevel(script);
  const std::string top = TopLevel(file);
  return std::none_of(std::begin(kStdlibModules), std::end(kStdlibModules), [&](const char* m) { return top == m; });
}

}  // namespace strata::core::detail
