// The dispatcher entry points the aggregator marks on paths without recorded operators, told
// from the dynamic symbol table's (mangled) names as libtorch_cpu exports them.
#include <gtest/gtest.h>

#include "ops/dispatcher_entry.h"

using strata::rt::ops::IsDispatcherEntrySymbol;

TEST(DispatcherEntry, CallOfAnOperatorStruct) {
  EXPECT_TRUE(IsDispatcherEntrySymbol("_ZN2at4_ops5addmm4callERKNS_6TensorES4_S4_RKN3c106ScalarES8_"));
  EXPECT_TRUE(IsDispatcherEntrySymbol("_ZN2at4_ops10add_Tensor4callERKNS_6TensorES4_RKN3c106ScalarE"));
}

TEST(DispatcherEntry, OtherMembersAndNamesAreNot) {
  EXPECT_FALSE(IsDispatcherEntrySymbol(
      "_ZN2at4_ops5addmm10redispatchEN3c1014DispatchKeySetERKNS_6TensorES6_S6_RKNS2_6ScalarES9_"));
  EXPECT_FALSE(IsDispatcherEntrySymbol("_ZN2at4_ops5addmm4nameE"));           // the schema name string
  EXPECT_FALSE(IsDispatcherEntrySymbol("_ZN2at6native5addmmERKNS_6TensorE"));  // a kernel
  EXPECT_FALSE(IsDispatcherEntrySymbol("at::_ops::addmm::call(at::Tensor const&)"));  // demangled
  EXPECT_FALSE(IsDispatcherEntrySymbol("_ZN2at4_ops"));
  EXPECT_FALSE(IsDispatcherEntrySymbol("_ZN2at4_ops99addmm4callE"));  // length past the end
  EXPECT_FALSE(IsDispatcherEntrySymbol(""));
}
