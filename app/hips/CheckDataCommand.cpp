// `hips check-data TOPOLOGY`: each party's source read where its workers would read it, on this
// machine or over SSH on the party's own host (RemoteDataCheck.h), and the master's test set on
// the master's host; the counts are printed, never the contents.
#include "CheckDataCommand.h"

#include "CommandLine.h"
#include "DeployCommand.h"
#include "RemoteDataCheck.h"
#include "TopologyReader.h"

#include <cstdio>

namespace hips {

namespace {

struct SourceOnHost {
    QString owner;  // "party1", "evaluation_data"
    const Host* host;
    DataSource source;
};

// Each source with the hosts that read it: a party's on each host its workers run on (a host's
// own source first), the master's test set on the master's host.
QList<SourceOnHost> sourcesOnHosts(const Topology& t) {
    QList<SourceOnHost> out;
    for (const Party& p : t.parties)
        for (const WorkerGroup& g : p.workers) {
            const DataSource* source = t.dataSourceOf(p.id, g.host);
            const bool seen =
                std::any_of(out.begin(), out.end(), [&](const SourceOnHost& s) { return s.owner == p.id && s.host->id == g.host; });
            if (source && g.count > 0 && !seen && t.host(g.host)) out.append({p.id, t.host(g.host), *source});
        }
    if (const Party* central = t.centralParty();
        central && central->masterWorker && t.training.evaluationData && t.host(central->masterWorker->host))
        out.append({QStringLiteral("evaluation_data"), t.host(central->masterWorker->host), *t.training.evaluationData});
    return out;
}

bool isRemote(const Topology& t, const Host& host) {
    for (const Host& h : remoteHosts(t))
        if (h.id == host.id) return true;
    return false;
}

}  // namespace

int checkDataCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription(
        "Read each party's data where its workers would (over SSH on other hosts, under each "
        "host's data-roots) and print what it holds: counts only.");
    args.addPositionalArgument("TOPOLOGY", "Topology file.");
    addSshOptions(args);
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips check-data"));
    if (args.positionalArguments().size() != 1) {
        std::fprintf(stderr, "usage: hips check-data TOPOLOGY [--known-hosts PATH]\n");
        return 2;
    }
    const TopologyLoad load = TopologyReader::readFile(args.positionalArguments().first());
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return 2;
    }
    const Topology& t = *load.topology;
    const QList<SourceOnHost> sources = sourcesOnHosts(t);
    if (sources.isEmpty()) {
        std::printf("no party brings its own data: the run splits its dataset (%s) over the parties\n", qPrintable(t.training.dataset));
        return 0;
    }
    const DeployOptions options = deployOptionsFrom(args);
    const ReadOptions read = readOptionsFor(t.training);
    int failures = 0;
    for (const SourceOnHost& s : sources) {
        QString counts, error;
        if (isRemote(t, *s.host)) {
            error = checkDataOnHost(*s.host, options, s.source, read, &counts);
        } else {
            try {
                counts = checkSource(s.source, read);
            } catch (const DataError& e) {
                error = QString::fromStdString(e.what());
            } catch (const std::bad_alloc&) {  // (a file larger than memory ended the check unsaid)
                error = QStringLiteral("it does not fit in this machine's memory");
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
        }
        if (error.isEmpty()) {
            std::printf("%s on %s: %s\n", qPrintable(s.owner), qPrintable(s.host->id), qPrintable(counts));
        } else {
            std::fflush(stdout);  // (in order with the lines before it, on a terminal)
            std::fprintf(stderr, "%s on %s: cannot use %s: %s\n", qPrintable(s.owner), qPrintable(s.host->id), qPrintable(s.source.path),
                         qPrintable(error));
            ++failures;
        }
        std::fflush(stdout);
    }
    return failures ? 1 : 0;
}

}  // namespace hips
