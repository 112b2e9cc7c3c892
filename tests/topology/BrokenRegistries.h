#pragma once
// The registries' table of broken topologies (modes, rules, partitions, models and their
// parameters): each breaks the default one way and names the issue the reader must report.
#include "BrokenTopologies.h"

namespace hips::test {

// The registries' table: modes, rules, partitions, models and their parameters.
inline QList<BrokenCase> registryBrokenCases() {
    return {
        {"unknown mode, the registry's names listed",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "gossip");
         },
         "$.training.mode", "'gossip' is not supported; use one of: fedavg, "},
        {"unknown aggregation",
         [](QJsonObject& t) {
             set(t, {"training", "aggregation"}, "average");
         },
         "$.training.aggregation", "'average' is not supported; use one of: fedavg"},
        {"unknown party aggregation",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "vote");
         },
         "$.training.party_aggregation", "'vote' is not supported; use one of: fedavg"},
        {"krum at parties too small for its f",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "krum");
             set(t, {"training", "party_byzantine_f"}, 1);
         },
         "$.training.party_aggregation",
         "krum needs at least 5 contributions (n > 2f + 2 with byzantine_f 1), and party 'party1' has 2 workers"},
        {"bulyan across too few parties",
         [](QJsonObject& t) {
             set(t, {"training", "aggregation"}, "bulyan");
         },
         "$.training.aggregation",
         "bulyan needs at least 7 contributions (n >= 4f + 3 with byzantine_f 1), and the global server's rounds have 4 workers"},
        {"krum whose quorum closes rounds below its bound",
         [](QJsonObject& t) {
             set(t, {"training", "aggregation"}, "krum");
             set(t, {"training", "byzantine_f"}, 0);
             set(t, {"training", "quorum"}, 0.5);
         },
         "$.training.aggregation",
         "krum needs at least 3 contributions (n > 2f + 2 with byzantine_f 0), and the global server's rounds have a quorum of 2 of 4 "
         "workers"},
        {"trimmed_mean that trims nothing",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "trimmed_mean");
         },
         "$.training.party_trim_beta",
         "trimmed_mean with trim_beta 0.1 cuts floor(0.1 x 2) = 0 values at each end of party 'party1''s round (2 contributions): it is "
         "the plain mean, which one liar moves anywhere; use median"},
        {"a Draco code of no workers a group (it divided by it)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "party_draco_r"}, 0);
         },
         "$.training.party_draco_r", "draco_r 0 is out of range"},
        {"a Draco code with a quorum",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "party_draco_r"}, 1);
             set(t, {"training", "quorum"}, 0.5);
         },
         "$.training.quorum", "draco_repetition decodes each round's contributions as the code assigned them"},
        {"a Draco code with client sampling (the drawn were decoded as the party)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "party_draco_r"}, 1);
             set(t, {"training", "clients_per_round"}, 1);
         },
         "$.training.clients_per_round", "draco_repetition decodes each round's contributions as the code assigned them"},
        {"trimmed_mean on a draw too small to trim (it was the plain mean)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "trimmed_mean");
             set(t, {"training", "party_trim_beta"}, 0.3);
             for (const char* party : {"1", "2"}) set(t, {"parties", party, "roles", "workers"}, QJsonArray{QJsonObject{{"count", 4}}});
             set(t, {"parties", "1", "clients_per_round"}, 2);
         },
         "$.parties[1].clients_per_round",
         "trimmed_mean with trim_beta 0.3 cuts floor(0.3 x 2) = 0 values at each end of party "
         "'party1''s drawn round (2 contributions)"},
        {"Draco's cyclic code over more workers than it tells neighbouring liars apart among (a round decoded wrong, silently)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"training", "party_draco_s"}, 4);
             for (const char* party : {"1", "2"}) set(t, {"parties", party, "roles", "workers"}, QJsonArray{QJsonObject{{"count", 100}}});
         },
         "$.training.party_draco_s",
         "draco_cyclic with draco_s 4 tells liars at neighbouring ranks apart among at most 42 workers at float precision, and "
         "party 'party1' has 100: a round could decode wrong and say nothing"},
        {"a Draco code with more attackers than it outvotes (two in a group of three win)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "party_draco_r"}, 3);
             for (const char* party : {"1", "2"}) set(t, {"parties", party, "roles", "workers"}, QJsonArray{QJsonObject{{"count", 6}}});
             set(t, {"training", "adversary"}, QJsonObject{{"kind", "reverse"}, {"count", 2}});
         },
         "$.training.adversary.count",
         "party 'party1' may have 2 attackers in a round, and draco_repetition decodes exactly with at most 1 (more may win and "
         "say nothing): raise party_draco_r to 6, or attack fewer workers"},
        {"Draco's cyclic code with a party of attackers beyond its s",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"parties", "2", "roles", "workers"},
                 QJsonArray{QJsonObject{{"count", 3}}, QJsonObject{{"count", 2}, {"adversary", QJsonObject{{"kind", "nan"}}}}});
         },
         "$.parties", "party 'party2' may have 2 attackers in a round, and draco_cyclic decodes exactly with at most 1"},
        {"a Draco party on two kinds of device (their honest pushes differ in the last bits)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"parties", "1", "roles", "workers"},
                 QJsonArray{QJsonObject{{"count", 2}}, QJsonObject{{"count", 1}, {"device", "cuda:0"}}});
         },
         "$.parties", "party 'party1' has workers on cpu and on cuda:0, and draco_cyclic compares their pushes bit for bit"},
        {"Draco's cyclic code with compressed pushes (no round decoded)",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"training", "party_compression"}, "fp16");
         },
         "$.training.party_compression", "draco_cyclic decodes only exact codewords, and party_compression fp16 rounds"},
        {"a TorchScript model with buffers under a mode that pushes gradients, its sizes given",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "model"},
                 QJsonObject{{"torchscript", "/m.pt"}, {"sha256", QString(64, 'a')}, {"tensors", QJsonArray{10, 4, 4}}, {"buffers", 2}});
         },
         "$.training.model", "mode ssgd pushes gradients, and the TorchScript model has 2 floating buffers"},
        {"Draco's code under privacy at the workers",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "privacy"}, QJsonObject{{"where", "worker"}, {"noise_multiplier", 1.0}});
         },
         "$.training.privacy", "aggregation draco_repetition decodes identical copies of each update, and privacy noises every copy"},
        {"central workers under privacy at the party servers",
         [](QJsonObject& t) {
             set(t, {"training", "train_central_workers"}, true);
             set(t, {"training", "privacy"}, QJsonObject{{"where", "party"}, {"noise_multiplier", 1.0}});
         },
         "$.training.train_central_workers", "central workers push to the global server without one"},
        {"a robust rule where pushes are applied as they come",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "asgd");
             set(t, {"training", "aggregation"}, "median");
         },
         "$.training.aggregation",
         "mode asgd applies each push at the global server as it comes; aggregation median needs a round's contributions"},
        {"a global rule's parameter given for the parties' fedavg",
         [](QJsonObject& t) {
             set(t, {"training", "party_trim_beta"}, 0.2);
         },
         "$.training.party_trim_beta", "party_trim_beta is not a setting of mode fedavg"},
        {"a flat run in a mode that needs party servers",
         [](QJsonObject& t) {
             set(t, {"training", "hierarchy"}, "flat");
             set(t, {"training", "mode"}, "hfa");
         },
         "$.training.hierarchy", "a flat run has no party servers; mode hfa needs them"},
        {"parties with fewer servers than there are global servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"parties", "2", "roles", "servers"}, QJsonArray{QJsonObject{{"port", 9301}}});
         },
         "$.parties[2].roles.servers", "party 'party2' has 1 servers and the central party 2 global servers"},
        {"more servers in a party than the limit", [](QJsonObject& t) { sliceOverServers(t, 65); }, "$.parties[1].roles.servers",
         "65 servers given; a party runs at most 64"},
        {"a rule that compares whole updates over sliced global servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"training", "aggregation"}, "geometric_median");
         },
         "$.training.aggregation", "geometric_median compares whole updates, and each of the 2 global servers holds only a slice"},
        {"a rule that compares whole updates over sliced party servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"training", "party_aggregation"}, "geometric_median");
         },
         "$.training.party_aggregation", "geometric_median compares whole updates, and each party server holds only a slice"},
        {"an asynchronous mode over sliced servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"training", "mode"}, "asgd");
         },
         "$.training.mode", "mode asgd applies each push as it comes, and every server would count its own versions"},
        {"a quorum over sliced servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"training", "quorum"}, 3);
         },
         "$.training.quorum", "a quorum lets each server close its round with different contributions"},
        {"going on without a process over sliced servers",
         [](QJsonObject& t) {
             sliceOverServers(t, 2);
             set(t, {"training", "fault_policy"}, "continue");
         },
         "$.training.fault_policy", "under fault_policy continue each server would close its round with the workers it heard from"},
        {"a slice bound that leaves a server without keys",
         [](QJsonObject& t) {
             sliceOverServers(t, 5);
             set(t, {"training", "slice_bound"}, 1000000);
             set(t, {"training", "model"}, "mlp");  // four tensors, all below the bound, over five servers
         },
         "$.training.slice_bound", "with slice_bound 1000000, server"},
        {"an unknown fault policy",
         [](QJsonObject& t) {
             set(t, {"training", "fault_policy"}, "retry");
         },
         "$.training.fault_policy", "'retry' is not supported; use one of: fail, continue"},
        {"going on without a process in an asynchronous mode",
         [](QJsonObject& t) {
             set(t, {"training", "fault_policy"}, "continue");
             set(t, {"training", "mode"}, "asgd");
         },
         "$.training.fault_policy", "mode asgd cannot go on without one of its processes (it has no rounds to close without it)"},
        {"going on without a member of a Draco group",
         [](QJsonObject& t) {
             set(t, {"training", "fault_policy"}, "continue");
             set(t, {"training", "party_aggregation"}, "draco_repetition");
             set(t, {"training", "party_draco_r"}, 1);
         },
         "$.training.fault_policy", "draco_repetition decodes from every worker of a group and cannot go on without one"},
        {"a fault policy's parameter under fail",
         [](QJsonObject& t) {
             set(t, {"training", "min_workers"}, 1);
         },
         "$.training.min_workers", "min_workers is not a setting"},
        {"an unknown hierarchy",
         [](QJsonObject& t) {
             set(t, {"training", "hierarchy"}, "three_layer");
         },
         "$.training.hierarchy", ""},
        {"a Draco code at the global server",
         [](QJsonObject& t) {
             set(t, {"training", "aggregation"}, "draco_repetition");
         },
         "$.training.aggregation", "draco_repetition codes the workers of one party: set it as party_aggregation"},
        {"repetition groups that do not divide a party",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");  // r 3, parties of 2
         },
         "$.training.party_draco_r", "party 'party1' has 2 workers, not a whole number of groups of draco_r 3"},
        {"a Draco code outside fedavg",
         [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"training", "mode"}, "esync");
         },
         "$.training.party_aggregation", "draco_cyclic needs mode fedavg"},
        {"a server optimizer where gradients are pushed",
         [](QJsonObject& t) {
             set(t, {"training", "server_optimizer"}, "adam");
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "model"}, "mlp");
         },
         "$.training.server_optimizer", "mode ssgd has no round of model deltas at the global server for server optimizer adam"},
        {"unknown server optimizer",
         [](QJsonObject& t) {
             set(t, {"training", "server_optimizer"}, "lamb");
         },
         "$.training.server_optimizer", "'lamb' is not supported; use one of: sgd, momentum, adam, yogi, adagrad"},
        {"an optimizer's parameter for another optimizer",
         [](QJsonObject& t) {
             set(t, {"training", "server_beta2"}, 0.9);
         },
         "$.training.server_beta2", "server_beta2 is not a setting of mode fedavg"},
        {"a parameter of another mode",
         [](QJsonObject& t) {
             set(t, {"training", "dc_lambda"}, 0.1);
         },
         "$.training.dc_lambda",
         "dc_lambda is not a setting of mode fedavg, aggregation fedavg, party_aggregation fedavg, partition iid, "
         "server_optimizer sgd, compression none or party_compression none"},
        {"a codec's parameter for another codec",
         [](QJsonObject& t) {
             set(t, {"training", "compression"}, "2bit");
             set(t, {"training", "codec_momentum"}, 0.5);
         },
         "$.training.codec_momentum", "compression 2bit or party_compression none; remove it"},
        {"a parameter out of its declared range",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "dcasgd");
             set(t, {"training", "dc_lambda"}, -1);
         },
         "$.training.dc_lambda", "dc_lambda -1 is out of range; use a number in [0, 1000]"},
        {"a large parameter out of range, every digit shown",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "hfa");
             set(t, {"training", "k1"}, 1234567);
         },
         "$.training.k1", "k1 1234567 is out of range; use an integer in [1, 1000000]"},
        {"a codec's bound shown whole",
         [](QJsonObject& t) {
             set(t, {"training", "compression"}, "2bit");
             set(t, {"training", "codec_bucket"}, 2000000);
         },
         "$.training.codec_bucket", "codec_bucket 2000000 is out of range; use an integer in [16, 1048576]"},
        {"a large round count, every digit shown",
         [](QJsonObject& t) {
             set(t, {"training", "rounds"}, 12345678);
         },
         "$.training.rounds", "12345678 is out of range; use an integer in [1, 1000000]"},
        {"a parameter that is not a number",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "dcasgd");
             set(t, {"training", "dc_lambda"}, "high");
         },
         "$.training.dc_lambda", "must be a finite number, found a string"},
        {"esync without a state service",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "esync");
             set(t, {"parties", "0", "roles", "state_service"}, QJsonValue(QJsonValue::Undefined));
         },
         "$.parties[0].roles", "mode esync needs a state service in the central party"},
        {"a quorum count that is not whole",
         [](QJsonObject& t) {
             set(t, {"training", "quorum"}, 2.5);
         },
         "$.training.quorum", "0 (all), a fraction in (0, 1) or a whole count"},
        {"hfa with central workers training",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "hfa");
             set(t, {"training", "train_central_workers"}, true);
         },
         "$.training.train_central_workers", "central workers have none"},
        {"ssgd counted in epochs",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "local_iters"}, 0);
             set(t, {"training", "local_epochs"}, 1);
         },
         "$.training.local_epochs", "counts a round in synchronisations"},
        {"a parameter of a partition not chosen",
         [](QJsonObject& t) {
             set(t, {"training", "alpha"}, 0.3);
         },
         "$.training.alpha", "not a setting of mode fedavg, aggregation fedavg, party_aggregation fedavg, partition iid,"},
        {"unknown partition",
         [](QJsonObject& t) {
             set(t, {"training", "partition"}, "by_label");
         },
         "$.training.partition", "'by_label' is not supported; use one of: iid, by_class, dirichlet"},
        {"gradients for a model with BatchNorm",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "model"}, "resnet18");
         },
         "$.training.model", "BatchNorm statistics have none"},
        {"unknown model",
         [](QJsonObject& t) {
             set(t, {"training", "model"}, "vgg");
         },
         "$.training.model", "use one of: cnn, mlp, alexnet, resnet18"},
        {"resume past the end",
         [](QJsonObject& t) {
             set(t, {"training", "resume_round"}, 20);
         },
         "$.training.resume_round", "must be below rounds (20)"},
        {"resume an asynchronous mode",
         [](QJsonObject& t) {
             set(t, {"training", "mode"}, "asgd");
             set(t, {"training", "resume_round"}, 5);
         },
         "$.training.resume_round", "only the modes with rounds at the global server resume"},
        {"negative checkpoint period",
         [](QJsonObject& t) {
             set(t, {"training", "checkpoint_every"}, -1);
         },
         "$.training.checkpoint_every", ""},
        {"an undeclared standby host", [](QJsonObject& t) { standbyServer(t, "b", "nowhere"); },
         "$.parties[0].roles.global_servers[0].standby_host", "host 'nowhere' is not declared in $.hosts"},
        {"a standby host for a party server",
         [](QJsonObject& t) {
             set(t, {"parties", "1", "roles", "servers", "0", "standby_host"}, "local");
         },
         "$.parties[1].roles.servers[0].standby_host", "unknown field 'standby_host'"},
        {"a standby host that is the server's own", [](QJsonObject& t) { standbyServer(t, "b", "b"); },
         "$.parties[0].roles.global_servers[0].standby_host", "the standby host is the server's own host 'b'"},
        {"a standby for a server beside the global scheduler", [](QJsonObject& t) { standbyServer(t, "local", "b"); },
         "$.parties[0].roles.global_servers[0].standby_host",
         "the global scheduler keeps the copy of the model a standby starts from, and it runs on 'local'"},
        {"a standby host that runs the global scheduler", [](QJsonObject& t) { standbyServer(t, "b", "local"); },
         "$.parties[0].roles.global_servers[0].standby_host",
         "the global scheduler keeps the copy of the model a standby starts from, and it runs on 'local'"},
        {"a standby host without fault_policy continue",
         [](QJsonObject& t) {
             standbyServer(t, "b", "c");
             set(t, {"training", "fault_policy"}, "fail");
         },
         "$.parties[0].roles.global_servers[0].standby_host", "a standby host takes over only under fault_policy continue"},
        {"a standby host whose port is taken",
         [](QJsonObject& t) {
             standbyServer(t, "b", "c");
             set(t, {"parties", "2", "host"}, "c");
             set(t, {"parties", "2", "roles", "scheduler", "port"}, 9101);
         },
         "$.parties[2].roles.scheduler.port", "port 9101 on host 'c' is already used by central global_servers (standby)"},
        {"an undeclared standby host of the master", [](QJsonObject& t) { standbyMaster(t, "b", "nowhere"); },
         "$.parties[0].roles.master_worker.standby_host", "host 'nowhere' is not declared in $.hosts"},
        {"a standby host that is the master's own", [](QJsonObject& t) { standbyMaster(t, "b", "b"); },
         "$.parties[0].roles.master_worker.standby_host", "the standby host is the master's own host 'b'"},
        {"an undeclared standby host of the state service", [](QJsonObject& t) { standbyStateService(t, "b", "nowhere"); },
         "$.parties[0].roles.state_service.standby_host", "host 'nowhere' is not declared in $.hosts"},
        {"a standby host that is the state service's own", [](QJsonObject& t) { standbyStateService(t, "b", "b"); },
         "$.parties[0].roles.state_service.standby_host", "the standby host is the state service's own host 'b'"},
        {"a standby host of the state service without fault_policy continue",
         [](QJsonObject& t) {
             standbyStateService(t, "b", "c");
             set(t, {"training", "fault_policy"}, "fail");
         },
         "$.parties[0].roles.state_service.standby_host", "a standby host takes over only under fault_policy continue"},
        {"a standby host of the state service whose port is taken",
         [](QJsonObject& t) {
             standbyStateService(t, "b", "c");
             set(t, {"parties", "2", "host"}, "c");
             set(t, {"parties", "2", "roles", "scheduler", "port"}, 9102);
         },
         "$.parties[2].roles.scheduler.port", "port 9102 on host 'c' is already used by central state_service (standby)"},
        {"a standby host of the master without fault_policy continue",
         [](QJsonObject& t) {
             standbyMaster(t, "b", "c");
             set(t, {"training", "fault_policy"}, "fail");
         },
         "$.parties[0].roles.master_worker.standby_host", "a standby host takes over only under fault_policy continue"},
        {"a standby host for a group of workers",
         [](QJsonObject& t) {
             standbyServer(t, "b", "c");
             set(t, {"parties", "1", "roles", "workers", "0", "standby_host"}, "c");
         },
         "$.parties[1].roles.workers[0].standby_host", "unknown field 'standby_host'"},
    };
}

}  // namespace hips::test
