// `trit hwx inspect|regs|diff|clean|convert`: Apple Neural Engine compiled
// files (.hwx) and the Linux driver's .ane form. See docs/HWX.md.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "formats/binfmt/binary_view.h"
#include "formats/hwx/ane_file.h"
#include "formats/hwx/clean.h"
#include "formats/hwx/diff.h"
#include "formats/hwx/hwx_report.h"
#include "formats/hwx/registers.h"

namespace trit::cli {
namespace {

constexpr const char* kFooter =
    "Reads .hwx (ANE Mach-O, magic 0xbeefface) and the Linux driver's .ane files; docs/HWX.md explains the format.";

struct FileOptions {
  std::string path;
  bool json = false;
};

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

// Names come from the file: bytes that are not UTF-8 are replaced, not thrown on.
std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Expected<hwx::HwxInput> LoadOrReport(const std::string& path) {
  Expected<hwx::HwxInput> in = hwx::LoadHwxInput(path);
  if (!in.ok()) PrintError(in.status().message());
  return in;
}

int RunInspect(const FileOptions& o) {
  Expected<hwx::HwxInput> in = LoadOrReport(o.path);
  if (!in.ok()) return kExitFailure;
  Print(o.json ? Dump(hwx::InspectJson(*in)) : hwx::InspectText(*in));
  return kExitSuccess;
}

int RunRegs(const FileOptions& o) {
  Expected<hwx::HwxInput> in = LoadOrReport(o.path);
  if (!in.ok()) return kExitFailure;
  Print(o.json ? Dump(hwx::RegsJson(*in)) : hwx::RegsText(*in));
  return kExitSuccess;
}

struct DiffCliOptions {
  std::string a, b;
  bool json = false;
  bool absent_as_zero = false;
};

// Exit 0 identical, 1 different, 2 a file could not be read (like cmp/diff).
int RunDiff(const DiffCliOptions& o) {
  Expected<hwx::HwxInput> a = LoadOrReport(o.a);
  if (!a.ok()) return kExitUsage;
  Expected<hwx::HwxInput> b = LoadOrReport(o.b);
  if (!b.ok()) return kExitUsage;
  hwx::DiffOptions options;
  options.absent_as_zero = o.absent_as_zero;
  const std::vector<hwx::Difference> diffs = hwx::DiffChains(a->descriptors(), b->descriptors(), options);
  Print(o.json ? Dump(hwx::DiffJson(diffs, *a, *b)) : hwx::DiffText(diffs, *a, *b));
  return diffs.empty() ? kExitSuccess : kExitFailure;
}

Status WriteAtomically(const std::string& path, std::span<const uint8_t> bytes) {
  Expected<AtomicFileWriter> w = AtomicFileWriter::Create(path);
  if (!w.ok()) return w.status();
  if (Status s = w->Write(bytes); !s.ok()) return s;
  return w->Commit();
}

struct CleanOptions {
  std::string in, out;
  bool force = false;
};

int RunClean(const CleanOptions& o) {
  Expected<hwx::HwxInput> in = LoadOrReport(o.in);
  if (!in.ok()) return kExitFailure;
  if (!in->hwx) {
    PrintError(fmt::format("{}: clean works on .hwx files (this is a .ane file)", o.in));
    return kExitFailure;
  }
  if (in->hwx->cpusubtype != 4) {
    PrintError(fmt::format("{}: clean knows H13 registers only; this file is cpusubtype {}", o.in, in->hwx->cpusubtype));
    return kExitFailure;
  }
  for (size_t k = 0; k < in->hwx->descriptors.size(); ++k) {
    if (hwx::UsesKernelDma(in->hwx->descriptors[k]) && !o.force) {
      PrintError(fmt::format("{}: descriptor {} fetches weights (a KernelDMASrc.CoeffDMAConfig channel is enabled): "
                             "its kernel-DMA state is not spurious. Refusing; --force cleans only what the rules match",
                             o.in, k));
      return kExitFailure;
    }
  }
  const std::vector<hwx::CleanChange> changes = hwx::PlanClean(in->hwx->descriptors);
  std::vector<uint8_t> bytes(in->file.bytes().begin(), in->file.bytes().end());
  hwx::ApplyClean(changes, bytes);
  if (Status s = WriteAtomically(o.out, bytes); !s.ok()) {
    PrintError(fmt::format("writing {}: {}", o.out, s.message()));
    return kExitFailure;
  }
  for (const hwx::CleanChange& c : changes) {
    Print(fmt::format("descriptor {} @{:#x} {:#x} {}: {:#x} -> {:#x} ({})\n", c.descriptor, c.offset, c.address,
                      hwx::RegisterName(c.address), c.before, c.after, c.rule));
  }
  Print(fmt::format("wrote {}: {} register value(s) changed, layout kept\n", o.out, changes.size()));
  return kExitSuccess;
}

struct ConvertOptions {
  std::string in, out;
  bool anecc_compat = false;
};

int RunConvert(const ConvertOptions& o) {
  Expected<hwx::HwxInput> in = LoadOrReport(o.in);
  if (!in.ok()) return kExitFailure;
  if (!in->hwx) {
    PrintError(fmt::format("{}: convert reads .hwx files (this is already a .ane file)", o.in));
    return kExitFailure;
  }
  const hwx::HwxFile& f = *in->hwx;
  if (f.cpusubtype != 4) {
    std::fprintf(stderr, "trit: warning: %s is cpusubtype %u; the Linux driver's .ane files are for H13 (M1)\n",
                 o.in.c_str(), f.cpusubtype);
  }
  const hwx::SlotConvention convention = o.anecc_compat ? hwx::SlotConvention::kAnecc : hwx::SlotConvention::kBarTable;
  Expected<hwx::AneConversion> c = hwx::ConvertToAne(f, in->file.bytes(), convention);
  if (!c.ok()) {
    PrintError(fmt::format("{}: {}", o.in, c.status().message()));
    return kExitFailure;
  }
  if (!c->matches_anecc) {
    std::string ours, theirs;
    for (size_t i = 0; i < f.buffers.size(); ++i) {
      ours += fmt::format(" {}={}", binfmt::Printable(f.buffers[i].name), c->slots[i]);
      theirs += fmt::format(" {}={}", binfmt::Printable(f.buffers[i].name), c->anecc_slots[i]);
    }
    std::fprintf(stderr,
                 "trit: note: %s's BAR table does not put outputs first: its descriptors address the buffers at slots%s, "
                 "the reference converter (eiln/anecc) assumes slots%s. %s\n",
                 o.in.c_str(), ours.c_str(), theirs.c_str(),
                 o.anecc_compat ? "--anecc-compat: wrote the reference layout; the descriptors will read and write the "
                                  "wrong buffers"
                                : "Wrote the slots the descriptors address; --anecc-compat reproduces the reference layout");
  }
  if (Status s = WriteAtomically(o.out, c->bytes); !s.ok()) {
    PrintError(fmt::format("writing {}: {}", o.out, s.message()));
    return kExitFailure;
  }
  std::string slots;
  const std::vector<int>& used = o.anecc_compat ? c->anecc_slots : c->slots;
  for (size_t i = 0; i < f.buffers.size(); ++i) {
    slots += fmt::format(" {} ({}) slot {};", binfmt::Printable(f.buffers[i].name), hwx::BufferRoleName(f.buffers[i].role), used[i]);
  }
  Print(fmt::format("wrote {}: {} bytes, {} descriptor(s) ({} layout, first {:#x} bytes), weights {:#x} bytes;{}\n",
                    o.out, c->bytes.size(), f.descriptors.size(), hwx::ChainLayout(f.descriptors), f.descriptors.front().size,
                    f.weights_size, slots));
  return kExitSuccess;
}

}  // namespace

Command AddHwxCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("hwx", "Apple Neural Engine compiled files (.hwx): inspect, registers, diff, "
                                               "clean, convert to the Linux driver's .ane");
  app->require_subcommand(1);
  app->footer(kFooter);
  auto inspect = std::make_shared<FileOptions>();
  CLI::App* i = app->add_subcommand("inspect", "Generation, compiler, descriptor layout, buffers (name, role, BAR, "
                                               "NCHW, strides, dtype), weights; every unknown part by offset");
  i->add_option("FILE", inspect->path, ".hwx or .ane file")->required();
  i->add_flag("--json", inspect->json, "One JSON object");
  auto regs = std::make_shared<FileOptions>();
  CLI::App* r = app->add_subcommand("regs", "Every register write of every task descriptor: address, block.register, "
                                            "value, decoded fields (unnamed addresses as unknown@0xADDR)");
  r->add_option("FILE", regs->path, ".hwx or .ane file")->required();
  r->add_flag("--json", regs->json, "One JSON object");
  auto diff = std::make_shared<DiffCliOptions>();
  CLI::App* d = app->add_subcommand("diff", "Register-by-register differences of two files by hardware address "
                                            "(exit 0 identical, 1 different, 2 unreadable)");
  d->add_option("A", diff->a, ".hwx or .ane file")->required();
  d->add_option("B", diff->b, ".hwx or .ane file")->required();
  d->add_flag("--json", diff->json, "One JSON object");
  d->add_flag("--absent-as-zero", diff->absent_as_zero,
              "A register one file does not write compares as 0 (compact descriptors leave zero runs out)");
  auto clean = std::make_shared<CleanOptions>();
  CLI::App* c = app->add_subcommand("clean", "Write a copy with the spurious kernel-DMA and NE state of weightless "
                                             "ops cleared, layout kept; prints each change");
  c->add_option("IN", clean->in, ".hwx file")->required();
  c->add_option("-o,--output", clean->out, "Output .hwx file")->required();
  c->add_flag("--force", clean->force, "Clean even when the op fetches weights (only the rules' exact patterns change)");
  auto convert = std::make_shared<ConvertOptions>();
  CLI::App* v = app->add_subcommand("convert", "Write the Linux driver's .ane file; buffer slots follow the HWX's BAR "
                                               "table");
  v->add_option("IN", convert->in, ".hwx file")->required();
  v->add_option("-o,--output", convert->out, "Output .ane file")->required();
  v->add_flag("--anecc-compat", convert->anecc_compat,
              "Reproduce the reference converter (eiln/anecc): outputs at slot 4, inputs after them");
  return {app, [=]() {
            if (i->parsed()) return RunInspect(*inspect);
            if (r->parsed()) return RunRegs(*regs);
            if (d->parsed()) return RunDiff(*diff);
            if (c->parsed()) return RunClean(*clean);
            if (v->parsed()) return RunConvert(*convert);
            return static_cast<int>(kExitUsage);
          }};
}

}  // namespace trit::cli
