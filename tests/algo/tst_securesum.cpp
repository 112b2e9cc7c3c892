// The global server's side of secure aggregation (SecureSum), played against three members over
// inproc sockets: a member cut off (not restarted) whose shares were asked for and which comes
// back with its keys has the ask taken back; its push closes the round, and the shares that come
// late are dropped unread (with its key recovered too, the push it sent was readable here).
#include "Channel.h"
#include "RoleContext.h"
#include "SecureAggregation.h"
#include "SecureSum.h"
#include "TopologyReader.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace hips;

namespace {

constexpr size_t kValues = 16;
const QStringList kMembers{"party1/server0", "party2/server0", "party3/server0"};

// The default topology with a third party like the second, secure aggregation on.
Topology threeParties() {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    f.open(QIODevice::ReadOnly);
    QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    QJsonObject third = parties[2].toObject(), roles = third["roles"].toObject();
    third["id"] = "party3";
    roles["scheduler"] = QJsonObject{{"port", 9400}};
    roles["servers"] = QJsonArray{QJsonObject{{"port", 9401}}};
    third["roles"] = roles;
    parties.append(third);
    t["parties"] = parties;
    QJsonObject training = t["training"].toObject();
    training["secure_aggregation"] = true;
    training["fault_policy"] = "continue";
    t["training"] = training;
    const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    return *load.topology;
}

Envelope from(const QString& peer, Message m) {
    Envelope e;
    e.peer = peer;
    e.message = std::move(m);
    return e;
}

// The next message of `type` a member receives (others before it skipped); none within 10 s.
std::optional<Message> nextOf(Channel& member, QLatin1String type) {
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired())
        if (auto e = member.receive(std::chrono::milliseconds(100)); e && e->message.type == type) return std::move(e->message);
    return std::nullopt;
}

struct Member {
    QString id;
    secagg::KeyPair keys = secagg::KeyPair::generate();
    std::vector<float> values;
};

// What `m` sends up in `round`: its values in fixed point plus its masks with the others.
Message maskedPush(const Member& m, const std::vector<Member>& all, qint64 round, qint64 epoch) {
    auto masked = std::make_shared<std::vector<quint64>>(kValues);
    secagg::encode(m.values.data(), kValues, int(all.size()), masked->data());
    for (const Member& other : all)
        if (other.id != m.id)
            secagg::applyMask(masked->data(), 0, kValues, *secagg::agreeKey(m.keys.secretKey, m.keys.publicKey, other.keys.publicKey),
                              quint64(round), m.id < other.id);
    Message push(message::kMaskedPush, {{QStringLiteral("round"), round},
                                        {QStringLiteral("epoch"), epoch},
                                        {QStringLiteral("offset"), 0},
                                        {QStringLiteral("total"), qint64(kValues)},
                                        {QStringLiteral("weight"), 100.0}});
    push.frames.push_back(sharedFrame(masked, masked->data(), kValues * sizeof(quint64)));
    return push;
}

}  // namespace

class SecureSumTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aMemberBackWithItsKeysHasTheAskForThemTakenBack() {
        RoleContext ctx(threeParties(), *threeParties().node("central/global_server0"), QString());
        Channel global = Channel::router(ctx.zmq, ctx.node.id, "inproc://securesum", CurveConfig{});
        std::vector<Member> members;
        std::vector<Channel> links;
        for (int i = 0; i < 3; ++i) {
            members.push_back(Member{kMembers[i], secagg::KeyPair::generate(), std::vector<float>(kValues, float(i + 1) * 0.25f)});
            links.push_back(Channel::dealer(ctx.zmq, kMembers[i], "inproc://securesum", ctx.node.id, CurveConfig{}));
            links.back().send(Message(QStringLiteral("ping")));  // (the router learns its route)
        }
        for (int i = 0; i < 3; ++i) QVERIFY(global.receive(std::chrono::seconds(10)));
        SecureSum sum(ctx, global, QSet<QString>(kMembers.begin(), kMembers.end()));

        // The first keys: each says hello, is asked for keys, and sends them.
        for (const Member& m : members) sum.onMessage(from(m.id, Message(message::kSecureHello)), 1, kValues);
        for (int i = 0; i < 3; ++i) {
            const auto setup = nextOf(links[i], message::kSecureSetup);
            QVERIFY(setup && setup->integer(QStringLiteral("epoch")) == 1);
            QCborMap boxes;
            for (const QString& other : kMembers)
                if (other != kMembers[i]) boxes.insert(other, QByteArray("a box"));
            sum.onMessage(
                from(kMembers[i], Message(message::kSecureKeys, {{QStringLiteral("epoch"), 1},
                                                                 {QStringLiteral("public_key"), secagg::bytes(members[i].keys.publicKey)},
                                                                 {QStringLiteral("boxes"), boxes}})),
                1, kValues);
        }
        for (Channel& link : links) QVERIFY(nextOf(link, message::kSecureGroup));

        // party3 is declared down; party1's push opens round 1, and the others are asked for
        // party3's shares.
        QVERIFY(sum.setAbsent(kMembers[2], true, 1, kValues).empty());
        Envelope push1 = from(kMembers[0], maskedPush(members[0], members, 1, 1));
        QVERIFY(sum.onPush(push1, 1, kValues).empty());
        QVERIFY(nextOf(links[0], message::kSecureRecover));
        QVERIFY(nextOf(links[1], message::kSecureRecover));

        // It was only cut off: back with its keys, the ask is taken back and its push closes the
        // round, the sum of all three.
        QVERIFY(sum.setAbsent(kMembers[2], false, 1, kValues).empty());
        Envelope push3 = from(kMembers[2], maskedPush(members[2], members, 1, 1));
        QVERIFY(sum.onPush(push3, 1, kValues).empty());
        Envelope push2 = from(kMembers[1], maskedPush(members[1], members, 1, 1));
        const SecureSum::Unmasked out = sum.onPush(push2, 1, kValues);
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0].message.frames.size(), size_t(1));
        const auto* values = static_cast<const float*>(out[0].message.frames[0].data());
        for (size_t k = 0; k < kValues; ++k)
            QVERIFY2(std::abs(values[k] - (0.25f + 0.5f + 0.75f)) < 1e-6f, qPrintable(QString::number(values[k])));

        // The shares the holders send as asked come late: dropped unread. With its key recovered
        // too, the push it sent was readable here.
        const std::vector<secagg::Share> shares = secagg::split(members[2].keys.secretKey, 2, 2);
        for (int i = 0; i < 2; ++i)
            QVERIFY(sum.onMessage(from(kMembers[i], Message(message::kSecureShare, {{QStringLiteral("epoch"), 1},
                                                                                    {QStringLiteral("party"), kMembers[2]},
                                                                                    {QStringLiteral("x"), shares[i].x},
                                                                                    {QStringLiteral("y"), secagg::bytes(shares[i].y)}})),
                                  2, kValues)
                        .empty());
        QCOMPARE(sum.recoveries(), quint64(0));
    }
};

QTEST_MAIN(SecureSumTest)
#include "tst_securesum.moc"
