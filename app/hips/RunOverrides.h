#pragma once
// hips run's and hips simulate's options that change the topology's settings for one run
// (--rounds, --lr, --mode, --device, --param, …): checked and applied, each error naming the option.
#include "Topology.h"

#include <QCommandLineParser>
#include <QStringList>

namespace hips {

void addOverrideOptions(QCommandLineParser& args);  // those of training's plain settings
// Applies the options given to `t`; returns what is wrong with one, empty when none is.
QString applyOverrides(const QCommandLineParser& args, Topology& t);
// The options given that change the topology's settings (applyOverrides reads them).
QStringList overridesGiven(const QCommandLineParser& args);
// --NAME as a positive integer into `field` (untouched when not given); the error names it.
QString readPositive(const QCommandLineParser& args, const char* name, int& field);

}  // namespace hips
