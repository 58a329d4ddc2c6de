// Small helpers for the control entry's JSON requests and replies.
#pragma once

#include "sim/sim_link.hpp"

#include <Poco/JSON/Object.h>

#include <optional>
#include <string>

namespace cudabridge::usb4 {

// Parses a request object; throws sdk::status_error(CB_ERR_INVALID_ARGUMENT) when it is not one.
Poco::JSON::Object::Ptr parse_request(const std::string& text);
std::string stringify(const Poco::JSON::Object::Ptr& o);
// A member of the request, or nothing; throws CB_ERR_INVALID_ARGUMENT naming the key when the
// value has the wrong type.
std::optional<std::string> text_field(const Poco::JSON::Object::Ptr& o, const char* key);
std::optional<double> number_field(const Poco::JSON::Object::Ptr& o, const char* key);
std::optional<bool> bool_field(const Poco::JSON::Object::Ptr& o, const char* key);
// The fault a "fault" request (or a posted fault) describes; CB_ERR_INVALID_ARGUMENT when a
// field is out of range.
fault_request fault_from(const Poco::JSON::Object::Ptr& r);

// A posted link drop is one event in time, the same for every process: stamped with the wall
// clock when posted ("posted_unix_ms"), a link opened later (during the drop) gets only what is
// left of it, and none once it is over.
void stamp_posted_drop(Poco::JSON::Object& posted);
void keep_what_is_left_of_the_drop(const Poco::JSON::Object::Ptr& posted, fault_request& f);

}  // namespace cudabridge::usb4
