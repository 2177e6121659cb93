# slurm_job_array: docs/SCALING.md's Slurm job array and merge job, run as written there on a
# single-node Slurm cluster the test starts (tests/scripts/slurm_array.sh). Skipped where Slurm
# and munge are not installed (scripts/install-deps.sh installs them) or not run as root.
if(INPUTANIM_BUILD_TOOLS AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME slurm_job_array
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/slurm_array.sh
            $<TARGET_FILE:inputanim_cli> ${PROJECT_SOURCE_DIR}/docs/SCALING.md
            ${CMAKE_CURRENT_BINARY_DIR}/slurm_job_array)
  set_tests_properties(slurm_job_array PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
