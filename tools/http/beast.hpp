// Boost.Beast and Boost.Asio as the server uses them: included through this header only, so that
// every file of the server sees them configured alike.
#pragma once

// Beast speaks std::string_view, as the rest of the program does (Boost 1.74 defaults to its own).
#define BOOST_BEAST_USE_STD_STRING_VIEW
// Boost 1.74's Asio sees C++20 coroutines only under GCC; clang has them too (libstdc++'s
// <coroutine>).
#if defined(__clang__) && defined(__cpp_impl_coroutine) && !defined(BOOST_ASIO_HAS_CO_AWAIT)
#define BOOST_ASIO_HAS_CO_AWAIT 1
#define BOOST_ASIO_HAS_STD_COROUTINE 1
#endif

#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/http/span_body.hpp>
