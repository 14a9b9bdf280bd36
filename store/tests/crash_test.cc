// Checks crash safety: a child process writes checkpoints in a loop and is
// SIGKILLed at random instants (also during create()), with each of the
// writer's sync modes (Deferred: no fsync until finish); after each kill the
// recording opens, lists at least every checkpoint the child saw committed,
// reports the torn tail, and every complete checkpoint equals the model.
// Some rounds also read the recording while the child is still writing.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <random>

#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

constexpr uint64_t kCreated = ~0ull;
constexpr uint64_t kMaxCheckpoints = 400;

[[noreturn]] void child_main(const std::string& rec, uint64_t seed, int out, const WriterOptions& options) {
  auto w = RecordingWriter::create(rec, testing::test_meta(), options);
  if (!w.ok()) _exit(2);
  if (write(out, &kCreated, 8) != 8) _exit(3);
  testing::Model model(seed);
  std::vector<uint8_t> storage;
  for (uint64_t k = 0; k < kMaxCheckpoints; k++) {
    if (!(*w)->add_checkpoint(model.next(k, storage, 60), "tick").ok()) _exit(4);
    if (write(out, &k, 8) != 8) _exit(5);
    for (uint64_t i = 0; i < k % 3; i++) {
      Event e;
      e.syscall_no = int64_t(k);
      e.result = int64_t(i);
      if (!(*w)->append_event(e).ok()) _exit(6);
    }
  }
  for (;;) pause();
}

void sleep_us(uint64_t us) {
  timespec ts{time_t(us / 1000000), long(us % 1000000) * 1000};
  nanosleep(&ts, nullptr);
}

void kill_rounds(const WriterOptions& options, int rounds) {
  std::mt19937_64 rng(20261123);
  int with_checkpoints = 0;
  uint64_t verified = 0, killed_in_create = 0;
  for (int round = 0; round < rounds; round++) {
    testing::TempDir tmp;
    uint64_t seed = rng();
    int fds[2];
    ASSERT_EQ(0, pipe(fds));
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      child_main(tmp.rec(), seed, fds[1], options);
    }
    close(fds[1]);
    bool early = round % 4 == 0;  // every 4th round: kill anywhere, even inside create()
    uint64_t msg = 0;
    if (!early) {
      ASSERT_EQ(read(fds[0], &msg, 8), 8) << "child failed before create() returned";
      ASSERT_EQ(msg, kCreated);
    }
    int64_t last_committed = -1;
    if (round % 2 == 1) {  // odd rounds: let checkpoint 0 commit first, so most rounds have some
      ASSERT_EQ(read(fds[0], &msg, 8), 8) << "child failed before checkpoint 0";
      last_committed = int64_t(msg);
    }
    if (round % 6 == 1) {  // a reader in this process while the child still writes
      auto live = RecordingReader::open(tmp.rec());
      ASSERT_TRUE(live.ok()) << live.error().message;
      EXPECT_TRUE((*live)->open_report().writer_active);
      EXPECT_FALSE((*live)->open_report().torn_tail.has_value());
      testing::Model model(seed);
      std::vector<uint8_t> storage;
      auto infos = (*live)->checkpoints();
      ASSERT_GE(infos.size(), 1u);
      for (uint64_t k = 0; k < infos.size(); k++) {
        model.next(k, storage, 60);
        ASSERT_EQ(testing::compare_checkpoint(**live, model, k), "") << "live read, round " << round;
      }
    }
    sleep_us(early ? rng() % 20000 : rng() % 40000);
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited by itself with status " << WEXITSTATUS(status);
    bool created = !early;
    while (read(fds[0], &msg, 8) == 8) {
      if (msg == kCreated) created = true;
      else last_committed = int64_t(msg);
    }
    close(fds[0]);

    auto r = RecordingReader::open(tmp.rec());
    if (!created) {
      // Killed inside create(): an empty recording or a one-line error.
      if (r.ok()) EXPECT_TRUE((*r)->checkpoints().empty());
      else EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
      killed_in_create++;
      continue;
    }  // killed inside create(): any one-line error is fine
    ASSERT_TRUE(r.ok()) << "round " << round << ": " << r.error().message;
    const OpenReport& rep = (*r)->open_report();
    EXPECT_FALSE(rep.finished);
    EXPECT_FALSE(rep.writer_active);
    EXPECT_TRUE(rep.torn_tail.has_value());
    ASSERT_GE(int64_t(rep.complete_checkpoints), last_committed + 1) << "a checkpoint add_checkpoint returned was lost";
    auto infos = (*r)->checkpoints();
    ASSERT_EQ(infos.size(), rep.complete_checkpoints);
    testing::Model model(seed);
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < infos.size(); k++) {
      model.next(k, storage, 60);
      ASSERT_EQ(infos[k].id.value, k);
      ASSERT_EQ(testing::compare_checkpoint(**r, model, k), "") << "round " << round;
      auto st = (*r)->process_state(CheckpointId(k));
      ASSERT_TRUE(st.ok()) << st.error().message;
      EXPECT_EQ(st->pid, int32_t(1000 + k));
      auto ev = (*r)->segment_events(SegmentId(k));
      ASSERT_TRUE(ev.ok()) << ev.error().message;
      if (k + 1 < infos.size()) EXPECT_EQ(ev->size(), k % 3);
      else EXPECT_LE(ev->size(), k % 3) << "the open segment reads as a prefix";
      for (uint64_t i = 0; i < ev->size(); i++) {
        EXPECT_EQ((*ev)[i].syscall_no, int64_t(k));
        EXPECT_EQ((*ev)[i].result, int64_t(i));
      }
    }
    if (!infos.empty()) with_checkpoints++;
    verified += infos.size();
  }
  std::printf("crash rounds: %d, killed inside create(): %llu, with checkpoints: %d, checkpoints verified: %llu\n",
              rounds, (unsigned long long)killed_in_create, with_checkpoints, (unsigned long long)verified);
  EXPECT_GE(with_checkpoints, rounds / 3) << "too few rounds got as far as a checkpoint to prove anything";
}

TEST(StoreCrash, EveryCompleteCheckpointSurvivesSigkill) { kill_rounds(WriterOptions{}, 60); }

// The recorder's mode: nothing is fsynced for a second, and still every
// checkpoint add_checkpoint returned is there after a kill.
TEST(StoreCrash, DeferredSyncLosesNothingToSigkill) {
  WriterOptions options;
  options.sync = WriterOptions::Sync::Deferred;
  options.sync_interval_ms = 1000;
  kill_rounds(options, 30);
}

}  // namespace
}  // namespace slsdbg::store
