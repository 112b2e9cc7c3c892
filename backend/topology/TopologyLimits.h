#pragma once
// Limits on what a topology may hold. A topology file may come from anyone (a shared folder, an
// agent command, a stored report), so every size that costs memory or time downstream is capped
// here, before anything is expanded. Each limit is checked with a message that names it.
#include <QtGlobal>

namespace hips {

// Bytes of JSON text, checked before parsing (readFile and readJson). The shipped default is ~1
// KiB.
inline constexpr qsizetype kMaxTopologyBytes = 1024 * 1024;

// Nodes one topology may hold: schedulers, servers, master worker and workers together. A
// simulated run (hips simulate) has them all as objects in one process; a deployed one starts a
// process for each, at most kMaxDeployedNodes.
inline constexpr qint64 kMaxNodes = 16384;
inline constexpr qint64 kMaxDeployedNodes = 1024;
// Hosts one topology may declare; a host without a process is useless, so no more than kMaxNodes.
inline constexpr qsizetype kMaxHosts = kMaxNodes;
// Every valid party runs at least a scheduler, a server and a worker (or the master worker).
inline constexpr qsizetype kMaxParties = kMaxNodes / 3;
// Entries in one party's workers or servers array, and workers in one group ("count").
inline constexpr qsizetype kMaxRoleEntries = kMaxNodes;
inline constexpr int kMaxWorkersPerGroup = 256;
// Servers in one party (key slicing): each holds a slice of every large tensor.
inline constexpr qsizetype kMaxServersPerParty = 64;

// Party and host ids: they become parts of node ids, directory and log names.
inline constexpr qsizetype kMaxIdLength = 64;
// A DNS host name (RFC 1035): 253 characters in all, 63 per label.
inline constexpr qsizetype kMaxHostNameLength = 253;
inline constexpr qsizetype kMaxHostLabelLength = 63;
// Free text: the topology name and the SSH user name.
inline constexpr qsizetype kMaxNameLength = 128;
// File system paths: identity_file, install_dir, data_dir (PATH_MAX on Linux).
inline constexpr qsizetype kMaxPathLength = 4096;

// Rounds of a run (training.rounds), and ranges a resume trained again (privacy.rerun_rounds).
inline constexpr int kMaxRounds = 1000000;

// Issues reported for one document; past this the rest are summarised in one line.
inline constexpr qsizetype kMaxIssues = 100;

}  // namespace hips
