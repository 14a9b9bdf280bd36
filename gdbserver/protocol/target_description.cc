#include "gdbserver/protocol/target_description.h"

#include <string_view>

#include "gdbserver/protocol/x86_64_registers.h"

namespace slsdbg::gdbserver {
namespace {

struct Field {
  std::string_view name;
  int start;
  int end;
};

void append_flags(std::string& xml, std::string_view id, std::initializer_list<Field> fields) {
  xml += "  <flags id=\"" + std::string(id) + "\" size=\"4\">\n";
  for (const auto& f : fields) {
    xml += "    <field name=\"" + std::string(f.name) + "\" start=\"" + std::to_string(f.start) + "\" end=\"" +
           std::to_string(f.end) + "\"/>\n";
  }
  xml += "  </flags>\n";
}

// Types a feature's registers use, declared at the top of that feature.
void append_types(std::string& xml, std::string_view feature) {
  if (feature == "org.gnu.gdb.i386.core") {
    append_flags(xml, "i386_eflags",
                 {{"CF", 0, 0}, {"", 1, 1}, {"PF", 2, 2}, {"AF", 4, 4}, {"ZF", 6, 6}, {"SF", 7, 7},
                  {"TF", 8, 8}, {"IF", 9, 9}, {"DF", 10, 10}, {"OF", 11, 11}, {"NT", 14, 14},
                  {"RF", 16, 16}, {"VM", 17, 17}, {"AC", 18, 18}, {"VIF", 19, 19}, {"VIP", 20, 20},
                  {"ID", 21, 21}});
  } else if (feature == "org.gnu.gdb.i386.sse") {
    xml +=
        "  <vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
        "  <vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
        "  <vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
        "  <vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
        "  <vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
        "  <vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
        "  <union id=\"vec128\">\n"
        "    <field name=\"v4_float\" type=\"v4f\"/>\n"
        "    <field name=\"v2_double\" type=\"v2d\"/>\n"
        "    <field name=\"v16_int8\" type=\"v16i8\"/>\n"
        "    <field name=\"v8_int16\" type=\"v8i16\"/>\n"
        "    <field name=\"v4_int32\" type=\"v4i32\"/>\n"
        "    <field name=\"v2_int64\" type=\"v2i64\"/>\n"
        "    <field name=\"uint128\" type=\"uint128\"/>\n"
        "  </union>\n";
    append_flags(xml, "i386_mxcsr",
                 {{"IE", 0, 0}, {"DE", 1, 1}, {"ZE", 2, 2}, {"OE", 3, 3}, {"UE", 4, 4}, {"PE", 5, 5},
                  {"DAZ", 6, 6}, {"IM", 7, 7}, {"DM", 8, 8}, {"ZM", 9, 9}, {"OM", 10, 10},
                  {"UM", 11, 11}, {"PM", 12, 12}, {"FZ", 15, 15}});
  }
}

std::string build() {
  std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
      "<target version=\"1.0\">\n"
      "  <architecture>i386:x86-64</architecture>\n"
      "  <osabi>GNU/Linux</osabi>\n";
  std::string_view open_feature;
  for (const RegisterDesc& r : x86_64_registers()) {
    if (r.feature != open_feature) {
      if (!open_feature.empty()) xml += "</feature>\n";
      open_feature = r.feature;
      xml += "<feature name=\"" + std::string(r.feature) + "\">\n";
      append_types(xml, r.feature);
    }
    xml += "  <reg name=\"" + std::string(r.name) + "\" bitsize=\"" + std::to_string(r.size * 8) + "\" type=\"" +
           std::string(r.type) + "\" group=\"" + std::string(r.group) + "\" regnum=\"" + std::to_string(r.number) +
           "\"";
    if (r.dwarf >= 0) {
      xml += " dwarf_regnum=\"" + std::to_string(r.dwarf) + "\" ehframe_regnum=\"" + std::to_string(r.dwarf) + "\"";
    }
    if (!r.generic.empty()) xml += " generic=\"" + std::string(r.generic) + "\"";
    xml += "/>\n";
  }
  xml += "</feature>\n</target>\n";
  return xml;
}

}  // namespace

const std::string& x86_64_target_xml() {
  static const std::string xml = build();
  return xml;
}

}  // namespace slsdbg::gdbserver
