# `inputanim metrics` against an independent reading of docs/METRICS.md: metrics and events
# recomputed in plain Python from `inputanim sample`'s CSV of generated recordings
# (tests/scripts/metrics_from_sample.py).
if(TARGET inputanim_cli AND EXISTS /usr/bin/python3)
  add_test(NAME metrics_match_sample_csv
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/metrics_from_sample.py
            --cli $<TARGET_FILE:inputanim_cli>)
  set_tests_properties(metrics_match_sample_csv PROPERTIES TIMEOUT 300)
endif()
