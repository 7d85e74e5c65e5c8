// The ABI side of a strategy written once: guarded create/destroy/rank, the descriptor and
// lds_strategy_get. A plugin supplies a StrategySpec (its options table and ranking) and
// LDS_PLUGIN_STRATEGY(spec).
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "dir_ranking.h"
#include "error_text.h"
#include "option_table.h"
#include "strategy_options.h"
#include <lds/logdir_strategy.h>

namespace lds::plugin {

// What a strategy is: the descriptor's texts, its options and its ranking.
//
// Instance is what create builds and rank is handed: by default a const copy of the options (a
// stateless strategy); otherwise a type constructed as Instance(options, host) when it has such a
// constructor, else as Instance(options). rank is called only for a well-formed call with at least
// one directory, inside the exception guard; it writes args.order and args.order_len, or the error
// sentence.
template <typename Options, typename Instance = const Options>
struct StrategySpec {
  using OptionsType = Options;
  using InstanceType = std::remove_const_t<Instance>;

  const char* name;
  const char* version;
  const char* description;
  uint64_t capabilities;
  std::span<const Option<Options>> options;
  lds_status (*rank)(Instance& instance, lds_rank_args& args);
  // What rank writes into args.scores (ABI 1.2 score_name); nullptr when it writes none.
  const char* score_name = nullptr;
};

// The ABI entry points for one spec. They are fixed and non-virtual: they check every argument and
// run the spec's code inside the exception guard, so a strategy cannot forget either and no
// exception crosses the ABI. The spec is called only for what is its own, the ranking.
template <const auto& Spec>
class StrategySkeleton {
  using Options = typename std::remove_cvref_t<decltype(Spec)>::OptionsType;
  using Instance = typename std::remove_cvref_t<decltype(Spec)>::InstanceType;

  static Instance* new_instance(const Options& options, const lds_host_api* host) {
    if constexpr (!std::is_same_v<Instance, Options> &&
                  std::is_constructible_v<Instance, const Options&, const lds_host_api*>) {
      return new Instance(options, host);
    } else {
      return new Instance(options);
    }
  }

  static int32_t create(const lds_host_api* host, const lds_config_entry* config,
                        uint32_t config_count, void** instance, char* error,
                        uint32_t error_cap) noexcept {
    return run_guarded(Spec.name, error, error_cap, [&]() -> int32_t {
      lds_status status =
          check_create_arguments(Spec.name, config, config_count, instance, error, error_cap);
      if (status != LDS_OK) return status;
      Options options{};
      status =
          parse_options(Spec.name, Spec.options, {config, config_count}, options, error, error_cap);
      if (status != LDS_OK) return status;
      *instance = new_instance(options, host);
      return LDS_OK;
    });
  }

  static void destroy(void* instance) noexcept { delete static_cast<Instance*>(instance); }

  static int32_t rank(void* instance, lds_rank_args* args) noexcept {
    const lds_status status = validate_rank_args(instance, args, Spec.name);
    if (status != LDS_OK) return status;
    return run_guarded(Spec.name, args->error, args->error_cap, [&]() -> int32_t {
      if (args->dir_count == 0) return reject_no_candidates(args, Spec.name);
      return Spec.rank(*static_cast<Instance*>(instance), *args);
    });
  }

  static constexpr lds_strategy kDescriptor = {
      .struct_size = sizeof(lds_strategy),
      .abi_major = LDS_ABI_MAJOR,
      .abi_minor = LDS_ABI_MINOR,
      .name = Spec.name,
      .version = Spec.version,
      .description = Spec.description,
      .capabilities = Spec.capabilities,
      .create = create,
      .destroy = destroy,
      .rank = rank,
      .placed = nullptr,
      .score_name = Spec.score_name,
  };

 public:
  // lds_strategy_get: the descriptor for a host of the same major, NULL for any other.
  static const lds_strategy* Get(uint32_t host_abi_major, uint32_t /*host_abi_minor*/) noexcept {
    if (host_abi_major != LDS_ABI_MAJOR) return nullptr;
    return &kDescriptor;
  }
};

}  // namespace lds::plugin

// Defines the plugin's one exported function for spec, a constexpr StrategySpec.
#define LDS_PLUGIN_STRATEGY(spec)                                                          \
  const lds_strategy* lds_strategy_get(uint32_t host_abi_major, uint32_t host_abi_minor) { \
    return ::lds::plugin::StrategySkeleton<spec>::Get(host_abi_major, host_abi_minor);     \
  }
