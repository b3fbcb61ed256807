// A real-time thread can give real-time scheduling back (what serve's frame thread does when it takes too much of a core).
import Foundation
import Glibc
import Testing
@testable import PercSystem

@Suite struct ThreadPriorityTests {
    /// The calling thread's scheduling policy.
    static func policy() -> Int32 {
        var policy: Int32 = -1
        var param = sched_param()
        _ = pthread_getschedparam(pthread_self(), &policy, &param)
        return policy
    }

    @Test func aPromotedThreadIsDemotedToOrdinaryAndSaysWhy() async throws {
        let (promoted, before, demoted, after, again) = await withCheckedContinuation { done in
            let t = Thread {
                let p = ReceiveThreadPriority.promoteCurrentThread(as: .frameClock)
                let before = Self.policy()
                let d = ReceiveThreadPriority.demoteCurrentThread(as: .frameClock, reason: "test")
                let after = Self.policy()
                let again = ReceiveThreadPriority.demoteCurrentThread(as: .frameClock, reason: "test")
                done.resume(returning: (p, before, d, after, again))
            }
            t.start()
        }
        #expect(after == SCHED_OTHER, "ordinary afterwards in any case")
        #expect(!again, "an ordinary thread has nothing to give back")
        if promoted {
            #expect(before == SCHED_FIFO && demoted)
            #expect(ReceiveThreadPriority.status(of: .frameClock) == "ordinary (test)")
        } else {
            // Not permitted here (no CAP_SYS_NICE, or PERCBRIDGE_RT_PRIORITY=0): nothing to demote.
            #expect(!demoted)
        }
    }
}
