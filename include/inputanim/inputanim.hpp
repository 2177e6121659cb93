// One include for users of the library.
#pragma once

#include "inputanim/archive.hpp"
#include "inputanim/convert.hpp"
#include "inputanim/error.hpp"
#include "inputanim/evaluate.hpp"
#include "inputanim/export.hpp"
#include "inputanim/format.hpp"
#include "inputanim/input.hpp"
#include "inputanim/mapped_file.hpp"
#include "inputanim/metrics.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/stream.hpp"
#include "inputanim/thin.hpp"
#include "inputanim/validate.hpp"
#include "inputanim/views.hpp"
#include "inputanim/writer.hpp"
