#pragma once
// An aggregation rule at a server (ENGINE.md's AggregationRule): the contributions of one round
// go in, each with its sender and weight, and one vector comes out. Rules are chosen by name
// (AggregatorRegistry: `training.aggregation`); robust rules (median, Krum, Draco's majority
// vote) keep their inputs and do their whole-vector work in finish().
#include <QCborMap>
#include <QString>
#include <cstddef>
#include <memory>

namespace hips {

// One contribution as a rule sees it.
struct Contribution {
    QString from;  // the sender's node id (a worker, or a party server)
    double weight = 1;  // the training samples behind it (a party server's: its workers' sum)
    const float* values = nullptr;
    size_t length = 0;
    std::shared_ptr<const void> owner;  // when set, keeps `values` alive: the rule may hold them without a copy
};

class AggregationRule {
public:
    virtual ~AggregationRule() = default;
    virtual QString name() const = 0;
    // Starts a round of vectors of `length` floats.
    virtual void begin(size_t length) = 0;
    // begin() for round `round` of the server's (a rule that needs to know which, such as the
    // simulation of colluding liars, takes it here).
    virtual void beginRound(size_t length, qint64 round) {
        (void)round;
        begin(length);
    }
    virtual void add(Contribution contribution) = 0;
    virtual int contributions() const = 0;
    // Once every contribution of the round is in: whole-vector work (Krum's scores, Weiszfeld's
    // iterations, decoding). Before the first write().
    virtual void finish() {}
    // The round had fewer contributions than the rule needs (finish()): the model is left as it
    // was, and a server optimizer takes no step on it either.
    virtual bool shortRound() const { return false; }
    // out[i] = base[i] + aggregate[i] for i in [begin, end) (base may be null: the aggregate
    // alone). Computing by ranges lets a server send each slice as soon as it is written.
    virtual void write(float* out, const float* base, size_t begin, size_t end) const = 0;
    // True for a rule whose aggregate is the plain sum of the contributions: the server may then
    // fold each one into the next model as it arrives (RoundCollector::foldOnArrival), and the
    // tier below may send its sum instead of its contributions.
    virtual bool foldsOnArrival() const { return false; }
    bool needsIndividuals() const { return !foldsOnArrival(); }
    // The fewest contributions a round needs with the rule's parameters (Krum: 2f + 3), and the
    // bound in words ("n > 2f + 2 with byzantine_f 1"); validation refuses a tier with fewer.
    // The rule weighs whole updates against each other (by distances between them), so a server
    // that holds only a slice of the model (key slicing) would decide on a part of the evidence.
    virtual bool comparesWholeUpdates() const { return false; }
    // The rule decodes a code laid over one party's workers (Draco: the data plan gives each the
    // data the code assigns), so it runs at party servers, in plain rounds, and needs every member.
    virtual bool codesWorkers() const { return false; }
    // The result is n × a centre of the n contributions (the robust rules): a server gives it each
    // contribution per worker behind it (a party's sum over its workers), and scales the centre
    // to the tier's workers, so that parties of unequal size are points alike.
    virtual bool centres() const { return false; }
    virtual int minimumContributions() const { return 1; }
    virtual QString minimumReason() const { return {}; }
    // The round's choices (senders selected or rejected), for the metrics; empty for FedAvg.
    virtual QCborMap report() const { return {}; }
};

}  // namespace hips
