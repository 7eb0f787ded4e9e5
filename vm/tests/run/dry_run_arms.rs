//! `tissvm run --dry-run` shows which arm each effect is in: indented under
//! `IF <cond> (line N) then:` / `else IF ...` / `else:`, `TRY:` / `CATCH:`,
//! and each CHOOSE option by number and name, nested as in the plan, with
//! CALLed tasks inline; a condition as written, whether its AND/OR jumps or
//! combines values. The listing is compared whole.

const ARMS: &str = r#"TASK "Release"

DEFINE_TASK "notify" {
    LOG "notified"
}

STEP "build" {
    RUN "make" TIMEOUT 60s
    IF LAST_RUN.EXIT_CODE == 0 AND FILE "out/app" EXISTS {
        RUN "make install"
        TRY {
            RUN "./smoke-test"
        } CATCH AS e {
            LOG "smoke failed: ${e.MESSAGE}"
            CALL "notify"
        }
    } ELSE IF LAST_RUN.STDOUT CONTAINS "warning" OR LAST_RUN.EXIT_CODE > 2 {
        LOG "warnings"
    } ELSE {
        WRITE "failed.txt" FROM "yes"
    }
    IF LAST_RUN.TIMED_OUT {
        VAR quiet = TRUE
    }
    CHOOSE "Which channel?" {
        OPTION "stable" {
            WRITE "channel.txt" FROM "stable"
        }
        OPTION "beta" {
            IF NOT FILE "beta.lock" EXISTS {
                WRITE "channel.txt" FROM "beta"
            }
        }
        OPTION "none" {
            VAR x = 1
        }
    }
    ASSERT FILE "channel.txt" EXISTS MESSAGE "no channel after ${LAST_RUN.COMMAND}"
    RUN "echo done"
    IF (LAST_RUN.EXIT_CODE == 1 OR LAST_RUN.STDOUT CONTAINS "x") AND NOT LAST_RUN.TIMED_OUT {
        LOG "retry"
    }
}
"#;

const LISTING: &str = r#"STEP "build"  (line 7)
  RUN make  [timeout 1m]  (line 8)
  IF LAST_RUN.EXIT_CODE == 0 AND FILE "out/app" EXISTS  (line 9) then:
    RUN make install  (line 10)
    TRY:
      RUN ./smoke-test  (line 12)
    CATCH AS e:
      LOG smoke failed: ${e.MESSAGE}  (line 14)
      CALL "notify"  (line 15)
        LOG notified  (line 4)
  else IF LAST_RUN.STDOUT CONTAINS "warning" OR LAST_RUN.EXIT_CODE > 2  (line 17) then:
    LOG warnings  (line 18)
  else:
    WRITE failed.txt  (3 bytes)  (line 20)
  CHOOSE Which channel?  (line 25)
    option 1 "stable":
      WRITE channel.txt  (6 bytes)  (line 27)
    option 2 "beta":
      IF NOT FILE "beta.lock" EXISTS  (line 30) then:
        WRITE channel.txt  (4 bytes)  (line 31)
    option 3 "none":
      (no effects)
  RUN echo done  (line 39)
  IF (LAST_RUN.EXIT_CODE == 1 OR LAST_RUN.STDOUT CONTAINS "x") AND NOT LAST_RUN.TIMED_OUT  (line 40) then:
    LOG retry  (line 41)
"#;

#[test]
fn each_effect_is_listed_under_the_arm_it_is_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("arms.tiss"), ARMS).unwrap();
    let run = crate::common::tissvm(dir.path(), &["run", "arms.tiss", "--dry-run"], &[]);
    run.expect(0);
    assert_eq!(run.stdout, LISTING, "got:\n{}", run.stdout);
}

/// Nested arms of every kind, in a task and in a SETUP, with nested steps
/// and conditions in parentheses: every effect stays under its arm.
#[test]
fn arms_nest_inside_arms_tasks_and_steps() {
    let plan = r#"TASK "Nest"
DEFINE_TASK "t" {
    TRY {
        IF (COST.RUN_COUNT < 3 OR COST.API_CALLS == 0) AND NOT FILE "stop" EXISTS {
            RUN "a"
        }
    } CATCH {
        TRY {
            RUN "b"
        } CATCH {
            RUN "c"
        }
    }
}
SETUP {
    STEP "inner" {
        IF "x" == "y" {
            CALL "t"
        } ELSE {
        }
    }
}
"#;
    let expected = r#"SETUP  (line 15)
  STEP "inner"  (line 16)
    IF "x" == "y"  (line 17) then:
      CALL "t"  (line 18)
        TRY:
          IF (COST.RUN_COUNT < 3 OR COST.API_CALLS == 0) AND NOT FILE "stop" EXISTS  (line 4) then:
            RUN a  (line 5)
        CATCH:
          TRY:
            RUN b  (line 9)
          CATCH:
            RUN c  (line 11)
"#;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nest.tiss"), plan).unwrap();
    let run = crate::common::tissvm(dir.path(), &["run", "nest.tiss", "--dry-run"], &[]);
    run.expect(0);
    assert_eq!(run.stdout, expected, "got:\n{}", run.stdout);
    // Bytecode that keeps its source's hash (`tissc compile`'s default)
    // finds the SETUP in the `.tiss` beside it.
    let Ok((mut module, _)) = tiss_compiler::compile("nest.tiss", plan.as_bytes(), Default::default()) else {
        panic!("the plan compiles");
    };
    module.source.drop_text();
    std::fs::write(dir.path().join("nest.tbc"), tisslang::container::encode(&module)).unwrap();
    let run = crate::common::tissvm(dir.path(), &["run", "nest.tbc", "--dry-run"], &[]);
    run.expect(0);
    assert_eq!(run.stdout, expected, "got:\n{}", run.stdout);
}
