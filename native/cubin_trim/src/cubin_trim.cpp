// See cubin_trim.h. The ELF records are read and written with memcpy (the input need not be
// aligned); glibc's <elf.h> gives their layout.
#include "strata/cubin_trim/cubin_trim.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace strata::cubin_trim {
namespace {

constexpr uint16_t kEmCuda = 190;
constexpr uint32_t kNvCallgraph = 0x70000001;  // .nv.callgraph: (caller, callee) symbol pairs

struct Bad {
  std::string what;
};

template <typename T>
T ReadAt(std::string_view bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) throw Bad{"record past the end of the file"};
  T t;
  std::memcpy(&t, bytes.data() + offset, sizeof(T));
  return t;
}

bool HasFileData(const Elf64_Shdr& s) { return s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL; }

struct Input {
  std::string_view bytes;
  Elf64_Ehdr eh{};
  std::vector<Elf64_Shdr> sh;
  std::vector<Elf64_Phdr> ph;
  std::vector<std::string> section_names;
  int symtab = -1;
  std::vector<Elf64_Sym> syms;
  std::vector<std::string> sym_names;
};

std::string CString(std::string_view table, uint64_t offset) {
  if (offset >= table.size()) throw Bad{"name offset past its string table"};
  size_t end = table.find('\0', offset);
  if (end == std::string_view::npos) throw Bad{"unterminated name in a string table"};
  return std::string(table.substr(offset, end - offset));
}

std::string_view SectionBytes(const Input& in, size_t i) {
  const Elf64_Shdr& s = in.sh[i];
  if (!HasFileData(s)) return {};
  return in.bytes.substr(s.sh_offset, s.sh_size);
}

Input Parse(std::string_view bytes) {
  Input in;
  in.bytes = bytes;
  if (bytes.size() < 4 || bytes.substr(0, 4) != "\x7f" "ELF") throw Bad{"not an ELF file"};
  in.eh = ReadAt<Elf64_Ehdr>(bytes, 0);
  if (in.eh.e_ident[EI_CLASS] != ELFCLASS64 || in.eh.e_ident[EI_DATA] != ELFDATA2LSB)
    throw Bad{"not a 64-bit little-endian ELF file"};
  if (in.eh.e_machine != kEmCuda)
    throw Bad{"ELF machine is " + std::to_string(in.eh.e_machine) + ", not EM_CUDA (190)"};
  if (in.eh.e_shnum == 0 || in.eh.e_shentsize != sizeof(Elf64_Shdr))
    throw Bad{"no section header table of the expected form"};
  if (in.eh.e_phnum && in.eh.e_phentsize != sizeof(Elf64_Phdr)) throw Bad{"program headers of an unexpected size"};
  for (size_t i = 0; i < in.eh.e_shnum; ++i)
    in.sh.push_back(ReadAt<Elf64_Shdr>(bytes, in.eh.e_shoff + i * sizeof(Elf64_Shdr)));
  for (size_t i = 0; i < in.eh.e_phnum; ++i)
    in.ph.push_back(ReadAt<Elf64_Phdr>(bytes, in.eh.e_phoff + i * sizeof(Elf64_Phdr)));
  for (const Elf64_Shdr& s : in.sh)
    if (HasFileData(s) && (s.sh_offset > bytes.size() || bytes.size() - s.sh_offset < s.sh_size))
      throw Bad{"a section lies past the end of the file"};
  if (in.eh.e_shstrndx >= in.sh.size()) throw Bad{"bad section name table index"};
  std::string_view shstr = SectionBytes(in, in.eh.e_shstrndx);
  for (const Elf64_Shdr& s : in.sh) in.section_names.push_back(CString(shstr, s.sh_name));
  for (size_t i = 0; i < in.sh.size(); ++i) {
    if (in.sh[i].sh_type != SHT_SYMTAB) continue;
    if (in.symtab >= 0) throw Bad{"more than one symbol table"};
    in.symtab = int(i);
  }
  if (in.symtab < 0) throw Bad{"no symbol table"};
  const Elf64_Shdr& st = in.sh[size_t(in.symtab)];
  if (st.sh_link >= in.sh.size()) throw Bad{"bad string table index of the symbol table"};
  std::string_view strtab = SectionBytes(in, st.sh_link);
  std::string_view symbytes = SectionBytes(in, size_t(in.symtab));
  for (size_t off = 0; off + sizeof(Elf64_Sym) <= symbytes.size(); off += sizeof(Elf64_Sym)) {
    in.syms.push_back(ReadAt<Elf64_Sym>(symbytes, off));
    in.sym_names.push_back(CString(strtab, in.syms.back().st_name));
  }
  return in;
}

bool IsDefinedFunction(const Input& in, size_t k) {
  const Elf64_Sym& s = in.syms[k];
  return ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE &&
         s.st_shndx < in.sh.size();
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

uint64_t AlignUp(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

// The first instruction of each dropped function, enough for a disassembler: nvdisasm 13
// stops on a function symbol whose section has no bytes at its address ("Cannot find the code
// address of symbol"). From Volta (sm_70) on an instruction is 16 bytes; before, instructions
// come in 32-byte bundles (a control word and three instructions). The bytes are the
// function's own, so they decode on this very architecture. A library module keeps thousands of
// dropped functions: 16 bytes rather than 32 each matter there.
uint64_t StubBytes(const Elf64_Ehdr& eh) {
  // The SM number is the low byte of e_flags in ABI version 7 and the next byte in version 8;
  // the other of the two bytes holds small flags there, so the larger one is the SM.
  const uint32_t sm = std::max(eh.e_flags & 0xffu, (eh.e_flags >> 8) & 0xffu);
  return sm >= 70 ? 16 : 32;
}

// Replaces each dropped code section (code[i] == 2) by the stubs of its functions, one after
// the other in their original order, and moves their symbols there: every function symbol
// keeps [st_value, st_value + st_size) inside its section with st_size > 0. Other symbols of
// the section (its section symbol, labels) move with the function they were in, size 0.
void StubDroppedCode(const Input& in, const std::vector<int>& code, std::vector<Elf64_Sym>& syms,
                     std::unordered_map<size_t, std::string>& replaced) {
  std::unordered_map<size_t, std::vector<uint64_t>> starts;  // section -> its functions' offsets
  for (size_t k = 0; k < in.syms.size(); ++k)
    if (IsDefinedFunction(in, k) && code[in.syms[k].st_shndx] == 2) starts[in.syms[k].st_shndx].push_back(in.syms[k].st_value);
  for (auto& [sec, offs] : starts) {
    std::sort(offs.begin(), offs.end());
    offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
    const std::string_view bytes = SectionBytes(in, sec);
    std::string& stub = replaced[sec];
    std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> moved;  // old offset -> new (offset, size)
    const uint64_t stub_bytes = StubBytes(in.eh);
    for (size_t j = 0; j < offs.size(); ++j) {
      const uint64_t end = std::min<uint64_t>(j + 1 < offs.size() ? offs[j + 1] : bytes.size(), bytes.size());
      // A function at or past its section's end (none in nvcc's output) keeps no bytes.
      const uint64_t n = offs[j] < end ? std::min(stub_bytes, end - offs[j]) : 0;
      moved[offs[j]] = {stub.size(), n};
      if (n) stub.append(bytes.substr(offs[j], n));
    }
    for (size_t k = 0; k < syms.size(); ++k) {
      if (in.syms[k].st_shndx != sec) continue;
      if (IsDefinedFunction(in, k)) {
        syms[k].st_value = moved[in.syms[k].st_value].first;
        syms[k].st_size = moved[in.syms[k].st_value].second;
        continue;
      }
      // The function it lay in (the last start at or before it), else the section's start.
      auto after = std::upper_bound(offs.begin(), offs.end(), in.syms[k].st_value);
      syms[k].st_value = after == offs.begin() ? 0 : moved[*(after - 1)].first;
      syms[k].st_size = 0;
    }
  }
}

// Drops the frame descriptions (FDEs) of dropped functions from .debug_frame: about 100 bytes
// each with its CIE, a fifth of what a dropped function still costs a library module. An FDE goes when every
// relocation inside it names a symbol of a dropped code section (its initial location); the
// kept entries move up, their relocations with them, and each kept FDE's CIE pointer (an
// offset into the section) follows its CIE; a CIE no kept FDE points to goes as well. Left whole when anything is not as expected (a
// relocation on a CIE pointer, an entry running past the section).
void TrimFrames(const Input& in, const std::vector<int>& code, std::unordered_map<size_t, std::string>& replaced) {
  for (size_t f = 1; f < in.sh.size(); ++f) {
    if (in.section_names[f] != ".debug_frame" || in.sh[f].sh_type != SHT_PROGBITS) continue;
    const std::string_view frames = SectionBytes(in, f);
    struct Reloc {
      size_t section, index;  // the relocation section and the entry's index in it
      uint64_t offset;
      bool dropped;  // names a symbol of a dropped code section
    };
    std::vector<Reloc> relocs;
    for (size_t r = 1; r < in.sh.size(); ++r) {
      const Elf64_Shdr& rs = in.sh[r];
      if ((rs.sh_type != SHT_REL && rs.sh_type != SHT_RELA) || rs.sh_info != f) continue;
      const size_t entry = rs.sh_type == SHT_REL ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela);
      const std::string_view bytes = SectionBytes(in, r);
      for (size_t k = 0; k + entry <= bytes.size(); k += entry) {
        const Elf64_Rel rel = ReadAt<Elf64_Rel>(bytes, k);
        const size_t sym = ELF64_R_SYM(rel.r_info);
        const bool dropped = sym < in.syms.size() && in.syms[sym].st_shndx < code.size() && code[in.syms[sym].st_shndx] == 2;
        relocs.push_back({r, k / entry, rel.r_offset, dropped});
      }
    }
    // The entries: [start, end), CIE or FDE, the CIE pointer's place and value for an FDE.
    struct Entry {
      uint64_t start, end;
      bool cie;
      uint64_t id_at, id;
      bool is64;
      bool drop = false;
    };
    std::vector<Entry> entries;
    bool ok = true;
    for (uint64_t at = 0; at < frames.size() && ok;) {
      if (frames.size() - at < 4) { ok = false; break; }
      uint64_t len = ReadAt<uint32_t>(frames, at), head = 4;
      const bool is64 = len == 0xffffffffu;
      if (is64) {
        if (frames.size() - at < 12) { ok = false; break; }
        len = ReadAt<uint64_t>(frames, at + 4);
        head = 12;
      }
      if (len == 0) { entries.push_back({at, at + head, true, 0, 0, is64}); at += head; continue; }  // terminator
      if (len > frames.size() - at - head || len < (is64 ? 8u : 4u)) { ok = false; break; }
      const uint64_t id = is64 ? ReadAt<uint64_t>(frames, at + head) : ReadAt<uint32_t>(frames, at + head);
      const bool cie = is64 ? id == UINT64_MAX : id == 0xffffffffu;
      entries.push_back({at, at + head + len, cie, at + head, id, is64});
      at += head + len;
    }
    if (!ok) continue;
    size_t dropped_entries = 0;
    for (Entry& e : entries) {
      if (e.cie) continue;
      size_t inside = 0, to_dropped = 0;
      for (const Reloc& r : relocs) {
        if (r.offset < e.start || r.offset >= e.end) continue;
        if (r.offset < e.id_at + (e.is64 ? 8 : 4)) { ok = false; break; }  // a relocated CIE pointer
        ++inside;
        to_dropped += r.dropped;
      }
      e.drop = inside && inside == to_dropped;
      dropped_entries += e.drop;
    }
    if (!ok || dropped_entries == 0) continue;
    // nvcc gives every function a CIE of its own: those no kept FDE points to go too.
    std::unordered_set<uint64_t> used_cies;
    for (const Entry& e : entries)
      if (!e.cie && !e.drop) used_cies.insert(e.id);
    for (Entry& e : entries) {
      if (!e.cie || e.end - e.start <= (e.is64 ? 12u : 4u) || used_cies.count(e.start)) continue;  // terminators stay
      // A CIE may hold an address too (a device function's names its kernel): it goes unless
      // that names kept code.
      bool to_kept = false;
      for (const Reloc& r : relocs) to_kept = to_kept || (r.offset >= e.start && r.offset < e.end && !r.dropped);
      if (!to_kept) e.drop = true;
    }
    std::vector<std::pair<uint64_t, uint64_t>> moved;  // kept entries: old start -> new start
    std::string out;
    for (const Entry& e : entries) {
      if (e.drop) continue;
      moved.emplace_back(e.start, out.size());
      out.append(frames.substr(e.start, e.end - e.start));
    }
    auto new_place = [&](uint64_t old, bool* found) -> uint64_t {
      for (auto it = moved.rbegin(); it != moved.rend(); ++it)
        if (it->first <= old) { *found = true; return old - it->first + it->second; }
      *found = false;
      return 0;
    };
    for (const Entry& e : entries) {  // CIE pointers of the kept FDEs
      if (e.drop || e.cie) continue;
      bool found = false;
      const uint64_t cie = new_place(e.id, &found);
      const uint64_t at = new_place(e.id_at, &found);
      if (!found) { ok = false; break; }
      if (e.is64) std::memcpy(&out[at], &cie, 8);
      else {
        const uint32_t c32 = uint32_t(cie);
        std::memcpy(&out[at], &c32, 4);
      }
    }
    if (!ok) continue;
    // The relocation sections: entries of dropped FDEs out, the others' offsets moved.
    std::unordered_map<size_t, std::string> rel_out;
    for (const Reloc& r : relocs) {
      const Elf64_Shdr& rs = in.sh[r.section];
      const size_t entry = rs.sh_type == SHT_REL ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela);
      std::string& o = rel_out[r.section];
      bool in_dropped = false;
      for (const Entry& e : entries)
        if (e.drop && r.offset >= e.start && r.offset < e.end) in_dropped = true;
      if (in_dropped) continue;
      std::string rec(SectionBytes(in, r.section).substr(r.index * entry, entry));
      bool found = false;
      const uint64_t off = new_place(r.offset, &found);
      if (!found) { ok = false; break; }
      std::memcpy(&rec[0], &off, 8);  // r_offset leads both record kinds
      o += rec;
    }
    if (!ok) continue;
    replaced[f] = std::move(out);
    for (auto& [r, bytes] : rel_out) replaced[r] = std::move(bytes);
    for (const Reloc& r : relocs) replaced.try_emplace(r.section);  // all of its entries dropped: empty
  }
}

}  // namespace

TrimmedCubin TrimCubin(std::string_view elf, const std::vector<std::string>& keep) {
  TrimmedCubin out;
  try {
    Input in = Parse(elf);
    const size_t n_sec = in.sh.size();

    // Functions asked for, then their callees (a kernel's non-inlined device functions).
    std::unordered_set<std::string> wanted(keep.begin(), keep.end());
    std::vector<bool> kept_fn(in.syms.size(), false);
    size_t found = 0;
    for (size_t k = 0; k < in.syms.size(); ++k)
      if (IsDefinedFunction(in, k) && wanted.count(in.sym_names[k])) kept_fn[k] = true, ++found;
    if (found == 0) throw Bad{"none of the " + std::to_string(wanted.size()) + " sampled functions is in it"};
    std::unordered_set<std::string> found_names;
    for (size_t k = 0; k < in.syms.size(); ++k)
      if (kept_fn[k]) found_names.insert(in.sym_names[k]);
    out.functions_missing = wanted.size() - found_names.size();
    for (size_t i = 0; i < n_sec; ++i) {
      if (in.sh[i].sh_type != kNvCallgraph) continue;
      std::string_view cg = SectionBytes(in, i);
      for (bool grew = true; grew;) {
        grew = false;
        for (size_t off = 0; off + 8 <= cg.size(); off += 8) {
          uint32_t caller = ReadAt<uint32_t>(cg, off), callee = ReadAt<uint32_t>(cg, off + 4);
          if (caller < kept_fn.size() && callee < kept_fn.size() && kept_fn[caller] && !kept_fn[callee] &&
              IsDefinedFunction(in, callee))
            kept_fn[callee] = grew = true;
        }
      }
    }

    // Code sections: dropped when none of their functions is kept.
    std::vector<int> code(n_sec, 0);  // 0: not code, 1: code kept, 2: code dropped
    for (size_t k = 0; k < in.syms.size(); ++k) {
      if (!IsDefinedFunction(in, k)) continue;
      size_t s = in.syms[k].st_shndx;
      if (!(in.sh[s].sh_flags & SHF_EXECINSTR)) continue;
      if (kept_fn[k]) code[s] = 1;
      else if (code[s] == 0) code[s] = 2;
    }
    std::vector<bool> drop(n_sec, false);
    for (size_t i = 0; i < n_sec; ++i) drop[i] = code[i] == 2;
    for (size_t i = 0; i < n_sec; ++i) {
      const Elf64_Shdr& s = in.sh[i];
      if (s.sh_info >= n_sec || !drop[s.sh_info] || drop[i]) continue;
      // Its relocations, constant banks (the parameter bank is most of their bytes) and
      // attributes (.nv.info.F: register counts, parameter layout, exit offsets).
      if (s.sh_type == SHT_REL || s.sh_type == SHT_RELA ||
          ((s.sh_flags & SHF_INFO_LINK) && (StartsWith(in.section_names[i], ".nv.constant") ||
                                            StartsWith(in.section_names[i], ".nv.info."))))
        drop[i] = true;
    }
    for (size_t k = 0; k < in.syms.size(); ++k) {
      if (!IsDefinedFunction(in, k)) continue;
      if (drop[in.syms[k].st_shndx]) ++out.functions_dropped;
      else ++out.functions_kept;
    }

    // Names. A library module's mangled names, each repeated in four section names, weigh more
    // than the code kept (cuBLAS: 0.7 MB of names in a 9 MB module): the functions whose code
    // is dropped are renamed "$d<symbol index>" in their symbols and their sections' names.
    std::vector<std::string> sec_names = in.section_names, sym_names = in.sym_names;
    std::unordered_map<std::string, std::string> short_name;  // dropped function -> "$d<k>"
    for (size_t k = 0; k < in.syms.size(); ++k)
      if (IsDefinedFunction(in, k) && drop[in.syms[k].st_shndx] && !in.sym_names[k].empty())
        short_name.emplace(in.sym_names[k], "$d" + std::to_string(k));
    auto shorten = [&](std::string& name) {
      if (auto it = short_name.find(name); it != short_name.end()) { name = it->second; return; }
      size_t dot = name.find('.', 1);  // ".text.F", ".nv.info.F", ".rela.text.F", ".nv.constant0.F"
      for (; dot != std::string::npos; dot = name.find('.', dot + 1))
        if (auto it = short_name.find(name.substr(dot + 1)); it != short_name.end()) {
          name = name.substr(0, dot + 1) + it->second;
          return;
        }
    };
    for (size_t i = 1; i < n_sec; ++i) {
      const Elf64_Shdr& s = in.sh[i];
      bool of_dropped = drop[i] || ((s.sh_flags & SHF_INFO_LINK || s.sh_type == SHT_REL || s.sh_type == SHT_RELA) &&
                                    s.sh_info < n_sec && drop[s.sh_info]);
      if (of_dropped) shorten(sec_names[i]);
    }
    for (size_t k = 0; k < in.syms.size(); ++k) {
      uint16_t shndx = in.syms[k].st_shndx;
      if (shndx < n_sec && shndx != SHN_UNDEF && drop[shndx]) shorten(sym_names[k]);
    }
    // New string tables (the symbols' and the sections' may be one table).
    std::unordered_map<size_t, std::string> replaced;  // section index -> new bytes
    std::vector<Elf64_Shdr> sh = in.sh;
    std::vector<Elf64_Sym> syms = in.syms;
    {
      const size_t strtab = in.sh[size_t(in.symtab)].sh_link, shstrtab = in.eh.e_shstrndx;
      std::unordered_map<std::string, uint32_t> at;
      auto add = [&](size_t table, const std::string& name) -> uint32_t {
        std::string& t = replaced[table];
        if (t.empty()) t.push_back('\0');
        if (name.empty()) return 0;
        std::string key = std::to_string(table) + ":" + name;
        auto [it, fresh] = at.emplace(key, uint32_t(t.size()));
        if (fresh) t.append(name).push_back('\0');
        return it->second;
      };
      for (size_t i = 0; i < n_sec; ++i) sh[i].sh_name = add(shstrtab, sec_names[i]);
      for (size_t k = 0; k < syms.size(); ++k) syms[k].st_name = add(strtab, sym_names[k]);
      StubDroppedCode(in, code, syms, replaced);
      TrimFrames(in, code, replaced);
      std::string& st = replaced[size_t(in.symtab)];
      st.assign(reinterpret_cast<const char*>(syms.data()), syms.size() * sizeof(Elf64_Sym));
      // Anything after the last whole record is kept as it was.
      std::string_view old = SectionBytes(in, size_t(in.symtab));
      st.append(old.substr(std::min(old.size(), st.size())));
    }

    // Lay the sections out again in their file order, dropped ones empty.
    std::vector<size_t> order(n_sec);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return in.sh[a].sh_offset < in.sh[b].sh_offset; });
    std::string& b = out.bytes;
    b.assign(sizeof(Elf64_Ehdr), '\0');
    for (size_t i : order) {
      if (i == 0) continue;
      const uint64_t align = HasFileData(in.sh[i]) ? std::max<uint64_t>(in.sh[i].sh_addralign, 1) : 1;
      b.resize(AlignUp(b.size(), align), '\0');
      sh[i].sh_offset = b.size();
      if (auto r = replaced.find(i); r != replaced.end()) {  // before drop: code stubs
        b.append(r->second);
        sh[i].sh_size = r->second.size();
      } else if (drop[i]) {
        sh[i].sh_size = 0;
      } else if (HasFileData(in.sh[i])) {
        b.append(SectionBytes(in, i));
      }
    }

    Elf64_Ehdr eh = in.eh;
    b.resize(AlignUp(b.size(), 8), '\0');
    eh.e_shoff = b.size();
    b.append(reinterpret_cast<const char*>(sh.data()), sh.size() * sizeof(Elf64_Shdr));
    if (!in.ph.empty()) {
      b.resize(AlignUp(b.size(), 8), '\0');
      eh.e_phoff = b.size();
      const uint64_t table_size = in.ph.size() * sizeof(Elf64_Phdr);
      std::vector<Elf64_Phdr> ph = in.ph;
      for (Elf64_Phdr& p : ph) {
        const uint64_t start = p.p_offset, end = p.p_offset + p.p_filesz;
        if (p.p_type == PT_PHDR || (start == in.eh.e_phoff && p.p_filesz == table_size)) {
          p.p_offset = eh.e_phoff;
          continue;
        }
        // The segment now spans the new places of the sections it covered.
        uint64_t new_start = UINT64_MAX, new_end = 0;
        for (size_t i = 1; i < n_sec; ++i) {
          const Elf64_Shdr& s = in.sh[i];
          if (!HasFileData(s) || s.sh_size == 0 || s.sh_offset < start || s.sh_offset + s.sh_size > end) continue;
          new_start = std::min(new_start, sh[i].sh_offset);
          new_end = std::max(new_end, sh[i].sh_offset + sh[i].sh_size);
        }
        if (new_start == UINT64_MAX) {  // covered no bytes: keep its place among the sections
          new_start = eh.e_shoff;
          for (size_t i : order)
            if (i && in.sh[i].sh_offset >= start) { new_start = sh[i].sh_offset; break; }
          new_end = new_start;
        }
        const uint64_t bss = p.p_memsz > p.p_filesz ? p.p_memsz - p.p_filesz : 0;
        p.p_offset = new_start;
        p.p_filesz = new_end - new_start;
        p.p_memsz = p.p_filesz + bss;
      }
      b.append(reinterpret_cast<const char*>(ph.data()), table_size);
    } else {
      eh.e_phoff = 0;
    }
    std::memcpy(&b[0], &eh, sizeof eh);
  } catch (const Bad& e) {
    out = TrimmedCubin{};
    out.error = "cubin: " + e.what;
  }
  return out;
}

}  // namespace strata::cubin_trim
