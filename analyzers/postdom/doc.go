// Package postdom defines an analyzer that builds the post-dominator tree
// of every function of a package over its go/ssa control-flow graph. It
// reports nothing; other analyzers ask it whether an instruction runs on
// every path from a function's entry to its return.
//
// # Analyzer postdom
//
// postdom: build post-dominator trees over the SSA control-flow graphs
//
// Block B post-dominates block A when every path from A to the function's
// exit passes through B. go/ssa computes dominators but not
// post-dominators; this package runs the Cooper–Harvey–Kennedy iterative
// algorithm ("A Simple, Fast Dominance Algorithm", 2001) on the reversed
// graph, with a virtual exit node that every way of leaving the function
// leads to:
//
//   - a return (the Return instruction ends the block);
//   - a panic (the Panic instruction ends the block);
//   - a call that never returns: os.Exit, runtime.Goexit, syscall.Exit,
//     log.Fatal and log.Panic and their Logger methods, testing's FailNow,
//     Fatal, Skip and their variants, and the functions of the package
//     itself that cannot return (found to a fixed point: every path of
//     their body ends in one of the above or loops forever). The block is
//     cut at the call: what follows it in the block and its successors are
//     not on the path;
//   - a loop that never ends (for {} or a select{} in a loop): a block that
//     no path leads out of gets an edge to the virtual exit, from a node of
//     the cycle (the last of the region in reverse postorder), so that such
//     a function still has a tree and a call that runs on every iteration
//     of `for { ... }` post-dominates the entry.
//
// CFP's Optimization 2 needs "f1 always calls f2" where the call is in a
// loop: Options.LoopsIterate assumes, as the paper does, that every loop
// runs its body at least once. Each natural loop's header is split: the
// edges that enter the loop go to a copy of the header whose only
// successors are inside the loop, the back edges to the original. A call
// in the body of `for i := 0; i < n; i++ { daxpy() }` then post-dominates
// the entry. It is an assumption, not a fact: with n == 0 the call never
// happens.
//
// Implicit panics (a nil dereference, an index out of range) are not
// exits: post-dominance here is about the paths the code takes when no
// runtime error stops it. A function with a deferred recover (a Recover
// block) is assumed to return.
//
// Cost. Building a tree is linear in the blocks and edges of a function
// times the few passes of the iteration. Each tree spends its blocks from
// the package's budget (see the budget analyzer); functions with more
// than MaxBlocks blocks, or met once the budget has run out, get no tree
// (Result.Skipped names them, the budget's skips say so) rather than a
// cut one, and analyzers asking about them must assume nothing is
// post-dominated.
package postdom
