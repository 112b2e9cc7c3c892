#pragma once
// `hips deploy TOPOLOGY` and `hips stop TOPOLOGY`, and the SSH options `hips run` shares.
#include "Deployer.h"

#include <QCommandLineParser>

namespace hips {

// --known-hosts, --accept-new-host-keys, --ssh-timeout.
void addSshOptions(QCommandLineParser& args);
// Deploy options from those flags, asking on the terminal for unknown host keys and passphrases.
DeployOptions deployOptionsFrom(const QCommandLineParser& args);

int deployCommand(const QStringList& arguments);
int stopCommand(const QStringList& arguments);

}  // namespace hips
