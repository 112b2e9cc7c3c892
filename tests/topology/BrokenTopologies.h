#pragma once
// The tables of broken topologies: each breaks the default one way and names the issue the
// reader must report. tst_topology and tst_registries check the reader against them; the
// designer test checks that the designer flags every one of them too. This one: the reader's
// table and the edits both tables use; BrokenRegistries.h: the registries' table.
#include "TopologyTestSupport.h"

#include <QJsonArray>
#include <tuple>

namespace hips::test {

// before + one UTF-16 unit + after: NUL, lone surrogates and controls cannot be written as literals.
inline QString withUnit(const char* before, char16_t unit, const char* after) {
    return QString::fromUtf8(before) + QChar(unit) + QString::fromUtf8(after);
}

// Key slicing: `servers` global servers and `servers` in every party of the default topology,
// on ports after each party's own.
inline void sliceOverServers(QJsonObject& t, int servers) {
    for (const auto& [party, role, first] :
         {std::tuple{"0", "global_servers", 9110}, std::tuple{"1", "servers", 9210}, std::tuple{"2", "servers", 9310}}) {
        QJsonArray list;
        for (int i = 0; i < servers; ++i) list.append(QJsonObject{{"port", first + i}});
        set(t, {"parties", party, "roles", role}, list);
    }
}

// Hosts b and c beside "local", the global server on `server` with standby host `standby`
// (fault_policy continue).
inline void standbyServer(QJsonObject& t, const char* server, const char* standby) {
    t["hosts"] = QJsonArray{QJsonObject{{"id", "local"}, {"address", "10.0.0.1"}}, QJsonObject{{"id", "b"}, {"address", "10.0.0.2"}},
                            QJsonObject{{"id", "c"}, {"address", "10.0.0.3"}}};
    set(t, {"parties", "0", "roles", "global_servers", "0", "host"}, server);
    set(t, {"parties", "0", "roles", "global_servers", "0", "standby_host"}, standby);
    set(t, {"training", "fault_policy"}, "continue");
}

// As standbyServer, for the master worker.
inline void standbyMaster(QJsonObject& t, const char* master, const char* standby) {
    standbyServer(t, "local", "b");
    set(t, {"parties", "0", "roles", "global_servers", "0", "standby_host"}, QJsonValue(QJsonValue::Undefined));
    set(t, {"parties", "0", "roles", "master_worker", "host"}, master);
    set(t, {"parties", "0", "roles", "master_worker", "standby_host"}, standby);
}

// As standbyServer, for the state service.
inline void standbyStateService(QJsonObject& t, const char* service, const char* standby) {
    standbyServer(t, "local", "b");
    set(t, {"parties", "0", "roles", "global_servers", "0", "standby_host"}, QJsonValue(QJsonValue::Undefined));
    set(t, {"parties", "0", "roles", "state_service", "host"}, service);
    set(t, {"parties", "0", "roles", "state_service", "standby_host"}, standby);
}

// The topology reader's table: structure, names, ports, hosts, text and limits.
inline QList<BrokenCase> topologyBrokenCases() {
    const QJsonValue remove = QJsonValue(QJsonValue::Undefined);
    return {
        {"unknown role",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "mixer"}, QJsonObject{});
         },
         "$.parties[1].roles.mixer", "unknown role 'mixer'"},
        {"global role in a party",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "master_worker"}, QJsonObject{});
         },
         "$.parties[1].roles.master_worker", "belongs to the central party"},
        {"central roles in an ordinary party",
         [](QJsonObject& t) {
             set(t, {"parties", "0", "central"}, false);
         },
         "$.parties[0].roles.global_scheduler", "role 'global_scheduler' belongs to the central party"},
        {"no central party",
         [](QJsonObject& t) {
             QJsonArray parties = t["parties"].toArray();
             parties.removeFirst();
             t["parties"] = parties;
         },
         "$.parties", "no central party"},
        {"two central parties",
         [](QJsonObject& t) {
             QJsonArray parties = t["parties"].toArray();
             QJsonObject copy = parties[0].toObject();
             copy["id"] = "central2";
             QJsonObject roles = copy["roles"].toObject();
             roles["global_scheduler"] = QJsonObject{{"port", 9400}};
             roles["global_servers"] = QJsonArray{QJsonObject{{"port", 9401}}};
             copy["roles"] = roles;
             parties.append(copy);
             t["parties"] = parties;
         },
         "$.parties", "2 parties are marked central"},
        {"party without scheduler",
         [=](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "scheduler"}, remove);
         },
         "$.parties[1].roles", "has no scheduler"},
        {"party without server",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "servers"}, QJsonArray{});
         },
         "$.parties[1].roles", "has no servers"},
        {"party without workers",
         [](QJsonObject& t) {
             set(t, {"parties", "2", "roles", "workers", "0", "count"}, 0);
         },
         "$.parties[2].roles.workers", "has no workers"},
        {"no master worker",
         [=](QJsonObject& t) {
             set(t, {"parties", "0", "roles", "master_worker"}, remove);
         },
         "$.parties[0].roles", "has no master_worker"},
        {"duplicate party id",
         [](QJsonObject& t) {
             set(t, {"parties", "2", "id"}, "party1");
         },
         "$.parties[2].id", "duplicate party id 'party1'"},
        {"duplicate host id",
         [](QJsonObject& t) {
             QJsonArray hosts = t["hosts"].toArray();
             hosts.append(hosts[0]);
             t["hosts"] = hosts;
         },
         "$.hosts[1].id", "duplicate host id 'local'"},
        {"two deployed hosts on one machine with one agent port",
         [](QJsonObject& t) {
             t["hosts"] = QJsonArray{QJsonObject{{"id", "a"}, {"address", "10.0.0.5"}, {"install_dir", "/srv/a"}},
                                     QJsonObject{{"id", "b"}, {"address", "10.0.0.5"}, {"install_dir", "/srv/b"}}};
             QJsonArray parties = t["parties"].toArray();
             for (int i = 0; i < parties.size(); ++i) {
                 QJsonObject p = parties[i].toObject();
                 p["host"] = i == 0 ? "a" : "b";
                 parties[i] = p;
             }
             t["parties"] = parties;
         },
         "$.hosts[1].agent_port", "share address 10.0.0.5 and agent_port 7070"},
        {"port clash",
         [](QJsonObject& t) {
             set(t, {"parties", "2", "roles", "scheduler", "port"}, 9200);
         },
         "$.parties[2].roles.scheduler.port", "port 9200 on host 'local' is already used by party1 scheduler"},
        {"role on the agent's port",
         [](QJsonObject& t) {
             t["hosts"] = QJsonArray{QJsonObject{{"id", "local"}, {"address", "10.0.0.1"}, {"agent_port", 9200}}};
         },
         "$.parties[1].roles.scheduler.port", "port 9200 on host 'local' is where hips-agent listens (agent_port of host 'local')"},
        {"undeclared host",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "servers", "0", "host"}, "nowhere");
         },
         "$.parties[1].roles.servers[0].host", "host 'nowhere' is not declared"},
        {"port out of range",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "servers", "0", "port"}, 70000);
         },
         "$.parties[1].roles.servers[0].port", "out of range"},
        {"port not an integer",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "servers", "0", "port"}, "9201");
         },
         "$.parties[1].roles.servers[0].port", "must be an integer"},
        {"negative rounds",
         [](QJsonObject& t) {
             set(t, {"training", "rounds"}, -3);
         },
         "$.training.rounds", "out of range"},
        {"an agent silence limit too short to hear a ping",
         [](QJsonObject& t) {
             set(t, {"training", "agent_timeout_s"}, 2);
         },
         "$.training.agent_timeout_s", "out of range"},
        {"fractional batch",
         [](QJsonObject& t) {
             set(t, {"training", "batch_size"}, 6.5);
         },
         "$.training.batch_size", "must be an integer"},
        {"unknown model",
         [](QJsonObject& t) {
             set(t, {"training", "model"}, "resnet");
         },
         "$.training.model", "'resnet' is not a built-in model; use one of: cnn"},
        {"unknown training key",
         [](QJsonObject& t) {
             set(t, {"training", "lerning_rate"}, 0.1);
         },
         "$.training.lerning_rate", "unknown training setting"},
        {"both local iters and epochs",
         [](QJsonObject& t) {
             set(t, {"training", "local_epochs"}, 2);
         },
         "$.training.local_iters", "exactly one of local_iters and local_epochs"},
        {"bad device",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "workers", "0", "device"}, "gpu0");
         },
         "$.parties[1].roles.workers[0].device", "not a device"},
        {"availability a number in a string, out of range",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "workers", "0", "availability"}, "2");
         },
         "$.parties[1].roles.workers[0].availability", "read as a probability per round"},
        {"availability nan in a string",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "workers", "0", "availability"}, "nan");
         },
         "$.parties[1].roles.workers[0].availability", "from 0.000001 to 1"},
        {"wrong format", [](QJsonObject& t) { t["format"] = "something-else"; }, "$.format", "must be \"hips-topology\""},
        {"future version", [](QJsonObject& t) { t["version"] = 9; }, "$.version", "newer than this program reads"},
        {"missing hosts", [](QJsonObject& t) { t.remove("hosts"); }, "$.hosts", "missing"},
        {"parties not an array", [](QJsonObject& t) { t["parties"] = "three"; }, "$.parties", "must be an array"},
        // Ids: printable, bounded, no '/', never shown raw.
        {"bidi control in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("par", 0x202E, "ty"));
         },
         "$.parties[1].id", "party id 'par\\u202ety' contains \\u202e (a bidi control"},
        {"arabic letter mark in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("p", 0x061C, "1"));
         },
         "$.parties[1].id", "\\u061c (a bidi control"},
        {"isolate in a host id",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "id"}, withUnit("lo", 0x2067, "cal"));
         },
         "$.hosts[0].id", "host id 'lo\\u2067cal' contains \\u2067"},
        {"NUL in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("p", 0, "evil"));
         },
         "$.parties[1].id", "'p\\x00evil' contains \\x00 (a control character) at character 2; use only letters"},
        {"escape in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("p", 0x1B, "[2J"));
         },
         "$.parties[1].id", "\\x1b (a control character)"},
        {"DEL in a host id",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "id"}, withUnit("lo", 0x7F, "cal"));
         },
         "$.hosts[0].id", "\\x7f (a control character)"},
        {"C1 control in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("p", 0x85, "1"));
         },
         "$.parties[1].id", "\\u0085 (a control character)"},
        {"lone surrogate in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("p", 0xDC00, "1"));
         },
         "$.parties[1].id", "\\udc00 (a lone surrogate"},
        {"zero-width space in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, withUnit("party", 0x200B, "1"));
         },
         "$.parties[1].id", "\\u200b (an invisible format character)"},
        {"slash in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, "a/b");
         },
         "$.parties[1].id", "contains '/' ('/', which separates party and role"},
        {"space in a party id",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, "party 1");
         },
         "$.parties[1].id", "contains ' ' (whitespace)"},
        {"no-break space in a host id",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "id"}, withUnit("lo", 0xA0, "cal"));
         },
         "$.hosts[0].id", "\\u00a0 (whitespace)"},
        {"party id of 65 characters",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, QString(65, 'p'));
         },
         "$.parties[1].id", "is 65 characters long; use at most 64"},
        {"party id '..'",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, "..");
         },
         "$.parties[1].id", "starts with '.'; start it with a letter, a digit or '_'"},
        {"party id that looks like an option",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "id"}, "-rf");
         },
         "$.parties[1].id", "starts with '-'"},
        {"symbol in a host id",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "id"}, "local$(x)");
         },
         "$.hosts[0].id", "contains '$' (not allowed here)"},
        // Addresses: IPv4, IPv6 or a DNS host name, naming the host.
        {"slash in an address",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "a/b");
         },
         "$.hosts[0].address", "host 'local': address 'a/b' contains '/'"},
        {"address of 100,000 characters",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, QString(100000, 'a'));
         },
         "$.hosts[0].address", "is 100000 characters long; use at most 253"},
        {"space in an address",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "127.0.0.1 -oProxyCommand=x");
         },
         "$.hosts[0].address", "contains ' ' (whitespace)"},
        {"newline in an address",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "example.org\nforged");
         },
         "$.hosts[0].address", "contains \\n (a control character)"},
        {"IPv4 part over 255",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "256.1.1.1");
         },
         "$.hosts[0].address", "neither an IPv4 address"},
        {"IPv4 with a leading zero",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "010.0.0.1");
         },
         "$.hosts[0].address", "neither an IPv4 address"},
        {"three-part IPv4",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "10.0.1");
         },
         "$.hosts[0].address", "neither an IPv4 address"},
        {"bad IPv6",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "fe80::1::2");
         },
         "$.hosts[0].address", "is not a valid IPv6 address"},
        {"IPv6 in brackets",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "[::1]");
         },
         "$.hosts[0].address", "contains '['"},
        {"label starting with '-'",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "-oProxyCommand.example");
         },
         "$.hosts[0].address", "starts or ends with '-'"},
        {"empty label",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, "a..example");
         },
         "$.hosts[0].address", "empty label"},
        {"label of 64 characters",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, QString(64, 'a') + ".org");
         },
         "$.hosts[0].address", "a label of 64 characters; a DNS label has at most 63"},
        {"non-ASCII host name",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "address"}, QString::fromUtf8("bücher.example"));
         },
         "$.hosts[0].address", "xn-- form"},
        {"ssh port 0",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "ssh_port"}, 0);
         },
         "$.hosts[0].ssh_port", "out of range"},
        {"agent port 80",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "agent_port"}, 80);
         },
         "$.hosts[0].agent_port", "out of range"},
        // Other text: bounded and printable.
        {"user that is an option",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "user"}, "-oProxyCommand=x");
         },
         "$.hosts[0].user", "starts with '-'"},
        {"newline in a user",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "user"}, "root\nforged");
         },
         "$.hosts[0].user", "contains \\n (a control character)"},
        {"escape in install_dir",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "install_dir"}, withUnit("/srv/", 0x1B, "]0;x"));
         },
         "$.hosts[0].install_dir", "host 'local': install_dir '/srv/\\x1b]0;x' contains \\x1b"},
        {"install_dir of 5000 characters",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "install_dir"}, "/" + QString(4999, 'd'));
         },
         "$.hosts[0].install_dir", "is 5000 characters long; use at most 4096"},
        {"bidi control in identity_file",
         [](QJsonObject& t) {
             set(t, {"hosts", "0", "identity_file"}, withUnit("/k/id_", 0x202E, "txt.pub"));
         },
         "$.hosts[0].identity_file", "\\u202e (a bidi control"},
        {"NUL in data_dir",
         [](QJsonObject& t) {
             set(t, {"training", "data_dir"}, withUnit("/data", 0, "/x"));
         },
         "$.training.data_dir", "data_dir '/data\\x00/x' contains \\x00"},
        {"line separator in the name", [](QJsonObject& t) { t["name"] = withUnit("run", 0x2028, "two"); }, "$.name", "\\u2028"},
        {"name of 200 characters", [](QJsonObject& t) { t["name"] = QString(200, 'n'); }, "$.name",
         "is 200 characters long; use at most 128"},
        {"escape in an unknown key",
         [](QJsonObject& t) {
             set(t, {"training", withUnit("a", 0x1B, "[2Jb")}, 1);
         },
         "$.training.a\\x1b[2Jb", "unknown training setting 'a\\x1b[2Jb'"},
        // Limits.
        {"more nodes than a topology may hold",
         [](QJsonObject& t) {
             QJsonArray groups;
             for (int i = 0; i < 65; ++i) groups.append(QJsonObject{{"count", 256}});
             set(t, {"parties", "1", "roles", "workers"}, groups);
         },
         "$.parties", "the topology holds 16649 nodes; a topology may hold at most 16384"},
        {"too many workers in one group",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "workers", "0", "count"}, 257);
         },
         "$.parties[1].roles.workers[0].count", "out of range"},
    };
}

}  // namespace hips::test
