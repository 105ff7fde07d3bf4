// Perfetto's TrackEvent model as the exporters write it (perfetto_export.cpp: a profile's GPU
// activities and region launches; runs/rank_timeline_perfetto.cpp: a run's ranks): the field
// numbers of perfetto/protos/perfetto/trace/{trace,trace_packet}.proto and track_event/*.proto,
// and TraceOut, which writes TrackDescriptors, interned names and slices in time order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "protobuf_writer.h"

namespace strata::core::detail {

// perfetto.protos field numbers.
constexpr uint32_t kTracePacket = 1;                // Trace.packet
constexpr uint32_t kPacketTimestamp = 8;            // TracePacket.timestamp (ns, boot clock)
constexpr uint32_t kPacketSequenceId = 10;          // TracePacket.trusted_packet_sequence_id
constexpr uint32_t kPacketTrackEvent = 11;          // TracePacket.track_event
constexpr uint32_t kPacketInternedData = 12;        // TracePacket.interned_data
constexpr uint32_t kPacketSequenceFlags = 13;       // TracePacket.sequence_flags
constexpr uint32_t kPacketTrackDescriptor = 60;     // TracePacket.track_descriptor
constexpr uint32_t kTrackUuid = 1, kTrackName = 2, kTrackParentUuid = 5;  // TrackDescriptor
constexpr uint32_t kEventAnnotations = 4, kEventType = 9, kEventNameIid = 10, kEventTrackUuid = 11,
                   kEventName = 23;  // TrackEvent
constexpr uint32_t kAnnotationNameIid = 1, kAnnotationUint = 3, kAnnotationInt = 4, kAnnotationDouble = 5,
                   kAnnotationString = 6, kAnnotationNested = 8, kAnnotationName = 10, kAnnotationDictEntries = 11,
                   kAnnotationArrayValues = 12, kAnnotationStringIid = 17;  // DebugAnnotation
constexpr uint32_t kInternedEventNames = 2, kInternedAnnotationNames = 3,
                   kInternedAnnotationStrings = 29;  // InternedData
constexpr uint32_t kInternedIid = 1, kInternedName = 2;  // EventName, DebugAnnotationName, InternedString
constexpr uint32_t kNestedType = 1, kNestedArray = 4, kNestedInt = 5,
                   kNestedString = 8;  // DebugAnnotation.NestedValue
constexpr uint64_t kNestedTypeDict = 1, kNestedTypeArray = 2;
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2;
constexpr uint64_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
constexpr uint32_t kSequence = 1;  // one writer: every packet on one sequence

class TraceOut {
 public:
  void Track(uint64_t uuid, uint64_t parent, const std::string& name) {
    ProtobufWriter track;
    track.Varint(kTrackUuid, uuid);
    if (parent != 0) track.Varint(kTrackParentUuid, parent);
    track.Bytes(kTrackName, name);
    ProtobufWriter packet = Packet();
    packet.Message(kPacketTrackDescriptor, track);
    trace_.Message(kTracePacket, packet);
  }
  // `event` holds the slice's name and annotations; its type and track are added here. Events
  // are kept until Finish, which writes them in time order: one sequence's timestamps do not go
  // back, whichever track an event is on.
  void Event(uint64_t ts, uint64_t type, uint64_t track, const ProtobufWriter& event) {
    ProtobufWriter e;
    e.Varint(kEventType, type);
    e.Varint(kEventTrackUuid, track);
    events_.push_back({ts, e.bytes() + event.bytes()});
  }
  // Interning ids (from 1, per table) of an event name, an annotation name, an annotation string.
  uint64_t EventNameIid(const std::string& name) { return event_names_.Iid(name); }
  uint64_t AnnotationNameIid(const std::string& name) { return annotation_names_.Iid(name); }
  uint64_t AnnotationStringIid(const std::string& value) { return annotation_strings_.Iid(value); }

  std::string Finish() {
    std::stable_sort(events_.begin(), events_.end(),
                     [](const Pending& a, const Pending& b) { return a.ts < b.ts; });
    // Every interned entry, in one packet ahead of the events that refer to them.
    ProtobufWriter interned;
    event_names_.Write(interned, kInternedEventNames);
    annotation_names_.Write(interned, kInternedAnnotationNames);
    annotation_strings_.Write(interned, kInternedAnnotationStrings);
    const bool any_interned = !interned.bytes().empty();
    if (any_interned) {
      ProtobufWriter packet = Packet();
      packet.Message(kPacketInternedData, interned);
      trace_.Message(kTracePacket, packet);
    }
    for (const Pending& e : events_) {
      ProtobufWriter packet = Packet(any_interned ? kNeedsIncrementalState : 0);
      packet.Varint(kPacketTimestamp, e.ts);
      packet.Bytes(kPacketTrackEvent, e.bytes);
      trace_.Message(kTracePacket, packet);
    }
    events_.clear();
    return trace_.bytes();
  }

 private:
  ProtobufWriter Packet(uint64_t flags = 0) {
    ProtobufWriter p;
    p.Varint(kPacketSequenceId, kSequence);
    if (first_) flags |= kIncrementalStateCleared;
    if (flags) p.Varint(kPacketSequenceFlags, flags);
    first_ = false;
    return p;
  }
  struct Pending {
    uint64_t ts;
    std::string bytes;
  };
  class InternTable {
   public:
    uint64_t Iid(const std::string& value) {
      auto [it, added] = iids_.emplace(value, values_.size() + 1);
      if (added) values_.push_back(&it->first);
      return it->second;
    }
    void Write(ProtobufWriter& interned, uint32_t field) const {
      for (size_t i = 0; i < values_.size(); ++i) {
        ProtobufWriter entry;
        entry.Varint(kInternedIid, i + 1);
        entry.Bytes(kInternedName, *values_[i]);
        interned.Message(field, entry);
      }
    }

   private:
    std::unordered_map<std::string, uint64_t> iids_;
    std::vector<const std::string*> values_;  // by iid - 1 (keys of iids_: stable addresses)
  };
  InternTable event_names_, annotation_names_, annotation_strings_;
  ProtobufWriter trace_;
  std::vector<Pending> events_;
  bool first_ = true;
};

// A debug annotation (an event's argument) by name, of each value type.
inline ProtobufWriter Annotation(const std::string& name) {
  ProtobufWriter a;
  a.Bytes(kAnnotationName, name);
  return a;
}
inline ProtobufWriter StringAnnotation(const std::string& name, const std::string& value) {
  ProtobufWriter a = Annotation(name);
  a.Bytes(kAnnotationString, value);
  return a;
}
inline ProtobufWriter UintAnnotation(const std::string& name, uint64_t value) {
  ProtobufWriter a = Annotation(name);
  a.Varint(kAnnotationUint, value);
  return a;
}
inline ProtobufWriter IntAnnotation(const std::string& name, int64_t value) {
  ProtobufWriter a = Annotation(name);
  a.Int64(kAnnotationInt, value);
  return a;
}
inline ProtobufWriter DoubleAnnotation(const std::string& name, double value) {
  ProtobufWriter a = Annotation(name);
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  a.Fixed64(kAnnotationDouble, bits);
  return a;
}

}  // namespace strata::core::detail
